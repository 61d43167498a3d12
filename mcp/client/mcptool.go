package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

var unsafeNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]`) })

// NormalizeName maps a server or tool name onto the characters tool names may use, as Claude
// Code does: anything but letters, digits, _ and - becomes _.
func NormalizeName(s string) string { return unsafeNameChars().ReplaceAllString(s, "_") }

// ToolName is the pool name of a server's tool: mcp__<server>__<tool>.
func ToolName(server, name string) string {
	return "mcp__" + NormalizeName(server) + "__" + NormalizeName(name)
}

// compileSchema resolves a tool's input schema so that calls can be validated in full. A
// schema whose validation would recurse without end or explode (tool.CheckSchemaShape) does
// not compile: the server's tool is left out rather than risk the process.
func compileSchema(v any) (*jsonschema.Resolved, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if err := tool.CheckSchemaDepth(raw); err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("the input schema must have type object, not %q", s.Type)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return r, tool.CheckSchemaShape(&s)
}

// Tools returns the tools of every connected server as pool tools (plus the resource tools
// when a server offers resources), in no particular order: tools.Assemble sorts them.
func (m *Manager) Tools() []tool.Tool {
	var out []tool.Tool
	resources := false
	names := m.poolNames()
	for _, s := range m.list() {
		s.mu.Lock()
		defs, ok := s.tools, s.state == StateConnected
		resources = resources || (ok && s.resources)
		s.mu.Unlock()
		if !ok {
			continue
		}
		for _, d := range defs {
			p, ok := names[s][d.Name]
			if !ok || p.refused != "" {
				continue // Status says why
			}
			t, err := newMCPTool(s, d, p)
			if err != nil {
				continue // listTools already left out what does not compile
			}
			out = append(out, t)
		}
	}
	if resources {
		out = append(out, newListResources(m), newReadResource(m))
	}
	return out
}

// mcpTool is a server's tool in the pool. It adds the pin check to the built tool.
type mcpTool struct {
	tool.Tool
	srv  *server
	def  *mcp.Tool
	hash string
}

func newMCPTool(s *server, d *mcp.Tool, p poolName) (*mcpTool, error) {
	resolved, err := compileSchema(d.InputSchema)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(d.InputSchema)
	if err != nil {
		return nil, err
	}
	ann := d.Annotations
	readOnly := ann != nil && ann.ReadOnlyHint
	// The spec's defaults for a tool that is not read-only: destructive and open-world.
	destructive := !readOnly && (ann == nil || ann.DestructiveHint == nil || *ann.DestructiveHint)
	openWorld := ann == nil || ann.OpenWorldHint == nil || *ann.OpenWorldHint
	meta := d.Meta
	alwaysLoad, _ := meta["anthropic/alwaysLoad"].(bool)
	hint, _ := meta["anthropic/searchHint"].(string)
	mt := &mcpTool{srv: s, def: d, hash: DefinitionHash(d)}
	name := p.name
	built, err := tool.New(tool.Def[map[string]any]{
		Name:        name,
		Description: d.Description,
		Prompt:      d.Description,
		SearchHint:  hint,
		RawSchema:   raw,
		Validate: func(_ context.Context, in map[string]any, _ *tool.Env) *tool.Failure {
			// Decoding already checked the schema; this second check against the resolved
			// server schema keeps the guarantee local to the adapter: nothing that fails the
			// server's own schema reaches the server.
			if err := tool.ValidateSafely(resolved, in); err != nil {
				return tool.Fail((&tool.InputError{Tool: name, Issues: []string{err.Error()}}).Error())
			}
			return nil
		},
		CheckPermissions: func(_ context.Context, pc *permission.Context, _ map[string]any) permission.Decision {
			return ownRules(pc, name, p.plain, s.name)
		},
		ReadOnly:        func(map[string]any) bool { return readOnly },
		ConcurrencySafe: func(map[string]any) bool { return readOnly },
		Destructive:     func(map[string]any) bool { return destructive },
		OpenWorld:       func(map[string]any) bool { return openWorld },
		// An open-world tool sends its input wherever its server does: the destination is the
		// server (docs/permissions.md, "Taint").
		Egress: func(context.Context, *permission.Context, map[string]any) permission.Egress {
			if !openWorld {
				return permission.Egress{}
			}
			return permission.Egress{Server: s.name}
		},
		UserFacingName: func(map[string]any) string {
			return fmt.Sprintf("%s - %s (MCP)", s.name, cmpOr(d.Title, annTitle(ann), d.Name))
		},
		Defer:      true,
		AlwaysLoad: alwaysLoad,
		MCP:        true,
		Call: func(ctx context.Context, in map[string]any, _ *tool.Env) (tool.Result, error) {
			return s.call(ctx, d.Name, in)
		},
	})
	if err != nil {
		return nil, err
	}
	mt.Tool = built
	return mt, nil
}

// ownRules applies deny and ask rules the engine cannot see by the tool's name:
//   - those written for a renamed tool's plain name (mcp__<server>__<tool>): a person's deny
//     must not lapse because the name the model sees had to change;
//   - a server rule mcp__<server> for a server whose name holds "__": rule names split at the
//     first "__", so the engine reads mcp__a__b as server a's tool b, and server a__b's tools
//     (mcp__a__b__c) would escape the deny written for them.
//
// Allow rules for those names do not apply: the plain name may now be another tool's, so the
// tool asks until a rule names it.
func ownRules(pc *permission.Context, name, plain, server string) permission.Decision {
	var names []string
	if plain != name {
		names = append(names, plain)
	}
	if strings.Contains(NormalizeName(server), "__") {
		names = append(names, "mcp__"+NormalizeName(server))
	}
	for _, b := range []permission.Behavior{permission.Deny, permission.Ask} {
		for _, n := range names {
			r := pc.ToolWideRule(b, n)
			if r == nil {
				continue
			}
			d := permission.Decision{Behavior: b, Reason: &permission.Reason{Type: permission.ReasonRule, Rule: r}, Message: permission.RequestMessage(name)}
			if b == permission.Deny {
				d.Message = fmt.Sprintf("Permission to use %s has been denied (by a rule for %s).", name, n)
			}
			return d
		}
	}
	// "Don't ask again" remembers the tool, as Claude Code's dialog does (the chat also offers
	// its whole server).
	return permission.Decision{Behavior: permission.Passthrough, Message: permission.RequestMessage(name),
		Suggestions: []permission.Update{{Type: permission.AddRules, Destination: permission.SourceLocal, Behavior: permission.Allow,
			Rules: []permission.RuleValue{{Tool: name}}}}}
}

func annTitle(a *mcp.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	return a.Title
}

func cmpOr(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// MCPServer is the configured name of the tool's server, by which an agent definition's
// mcpServers selects tools.
func (t *mcpTool) MCPServer() string { return t.srv.name }

// PinMatches implements permission.Pinned: an allow rule applies only to the definition it was
// granted for. The first time a rule covers the tool, the current definition is pinned.
func (t *mcpTool) PinMatches(r *permission.Rule) (bool, string) {
	pins := t.srv.m.opts.Pins
	if pins == nil {
		return true, ""
	}
	cur := t.srv.definition(t.def.Name)
	if cur == nil {
		return false, fmt.Sprintf("MCP server %q no longer offers %s", t.srv.name, t.def.Name)
	}
	return pins.Match(r, t.Name(), cur)
}

// call runs one tool call on the server's live session.
func (s *server) call(ctx context.Context, name string, args map[string]any) (tool.Result, error) {
	cs, err := s.current(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.ErrorResult(err.Error()), nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.CallTimeout)
	defer cancel()
	notes := s.track()
	defer s.untrack(notes)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return tool.ErrorResult(fmt.Sprintf("MCP server %q did not answer %s within %v (MCP_TOOL_TIMEOUT)", s.name, name, s.m.opts.CallTimeout)), nil
		}
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		// A crash shows as the transport's closed error, the end of its output, or a write
		// into the dead process's stdin (broken pipe), depending on which side saw it first.
		if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
			// The call may have reached the server before it went away, so it is not sent
			// again on its own: the model decides.
			return tool.ErrorResult(fmt.Sprintf("MCP server %q closed the connection during %s, which may or may not have run (%v). A crashed stdio server is restarted once; calling again goes to the new process.", s.name, name, err)), nil
		}
		return tool.ErrorResult(fmt.Sprintf("MCP server %q: %s: %v", s.name, name, err)), nil
	}
	out := mapResult(res, s.m.opts.MaxOutputTokens)
	for _, n := range notes.list() {
		out.Content = append(out.Content, tool.Text(n))
	}
	return out, nil
}

// imageTokens is what one image is counted as against the output limit.
const imageTokens = 1600

// mapResult turns an MCP result into a tool result: text and images as they are, resource
// links and embedded resources as text, structured content as JSON text when there is no other
// content. Output over maxTokens (estimated at four characters a token) is cut with a notice.
func mapResult(r *mcp.CallToolResult, maxTokens int) tool.Result {
	out := tool.Result{IsError: r.IsError, Output: r.StructuredContent}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out.Content = append(out.Content, tool.Text(c.Text))
		case *mcp.ImageContent:
			out.Content = append(out.Content, tool.Content{Type: "image", MediaType: c.MIMEType, Data: base64.StdEncoding.EncodeToString(c.Data)})
		case *mcp.AudioContent:
			out.Content = append(out.Content, tool.Text(fmt.Sprintf("[audio content (%s, %d bytes) is not supported]", c.MIMEType, len(c.Data))))
		case *mcp.ResourceLink:
			out.Content = append(out.Content, tool.Text(resourceLinkText(c)))
		case *mcp.EmbeddedResource:
			out.Content = append(out.Content, tool.Text(resourceText(c.Resource)))
		default:
			out.Content = append(out.Content, tool.Text(fmt.Sprintf("[unsupported content %T]", c)))
		}
	}
	if len(out.Content) == 0 && r.StructuredContent != nil {
		b, err := json.Marshal(r.StructuredContent)
		if err == nil {
			out.Content = append(out.Content, tool.Text(string(b)))
		}
	}
	return truncate(out, maxTokens)
}

func resourceLinkText(l *mcp.ResourceLink) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[Resource link: %s (%s)", cmpOr(l.Title, l.Name), l.URI)
	if l.MIMEType != "" {
		fmt.Fprintf(&b, ", %s", l.MIMEType)
	}
	if l.Description != "" {
		fmt.Fprintf(&b, ": %s", l.Description)
	}
	b.WriteString("]")
	return b.String()
}

func resourceText(rc *mcp.ResourceContents) string {
	if rc == nil {
		return "[empty resource]"
	}
	if rc.Blob != nil {
		return fmt.Sprintf("[Resource %s: binary content (%s, %d bytes) not shown]", rc.URI, cmpOr(rc.MIMEType, "unknown type"), len(rc.Blob))
	}
	return fmt.Sprintf("[Resource %s]\n%s", rc.URI, rc.Text)
}

// TruncationNotice ends a result cut at the output limit.
const TruncationNotice = "\n\n[OUTPUT TRUNCATED: the result exceeded the %d-token limit for MCP tool output (MAX_MCP_OUTPUT_TOKENS). If the server can page or filter, ask it for a smaller part.]"

func truncate(r tool.Result, maxTokens int) tool.Result {
	budget := maxTokens * 4
	var out []tool.Content
	cut := false
	for _, c := range r.Content {
		if cut {
			break
		}
		switch c.Type {
		case "image":
			if budget < imageTokens*4 {
				cut = true
				continue
			}
			budget -= imageTokens * 4
		default:
			if len(c.Text) > budget {
				c.Text = strings.ToValidUTF8(c.Text[:budget], "")
				cut = true
			}
			budget -= len(c.Text)
		}
		out = append(out, c)
	}
	if cut {
		out = append(out, tool.Text(fmt.Sprintf(TruncationNotice, maxTokens)))
	}
	r.Content = out
	return r
}

// Definition is what `reins mcp get` shows of a tool.
type Definition struct {
	Name        string
	Description string
	ReadOnly    bool
	Hash        string
}

// Definitions returns the current tool definitions of a connected server, by pool name.
func (m *Manager) Definitions(server string) []Definition {
	s := m.server(server)
	if s == nil {
		return nil
	}
	names := m.poolNames()[s]
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Definition
	for _, t := range s.tools {
		p, ok := names[t.Name]
		if !ok || p.refused != "" {
			continue
		}
		out = append(out, Definition{Name: p.name, Description: t.Description,
			ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint, Hash: DefinitionHash(t)})
	}
	return out
}
