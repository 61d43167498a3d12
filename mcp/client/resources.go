package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsdev/reins/tool"
)

// ListResourcesInput is the input of ListMcpResourcesTool.
type ListResourcesInput struct {
	Server string `json:"server,omitempty" jsonschema:"Optional server name to filter resources by"`
}

// ReadResourceInput is the input of ReadMcpResourceTool.
type ReadResourceInput struct {
	Server string `json:"server" jsonschema:"The MCP server name"`
	URI    string `json:"uri" jsonschema:"The resource URI to read"`
}

type resourceEntry struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
	Server      string `json:"server"`
}

// The resource tools ask by default like every tool (their checks return passthrough); they
// are read-only and safe to run in parallel.
func newListResources(m *Manager) tool.Tool {
	return tool.Build(tool.Def[ListResourcesInput]{
		Name:            "ListMcpResourcesTool",
		Description:     "List resources from connected MCP servers",
		Prompt:          "Lists the resources the connected MCP servers offer. Give server to list one server's resources only. Each entry has the server, uri, name, mimeType and description; read one with ReadMcpResourceTool.",
		ReadOnly:        func(ListResourcesInput) bool { return true },
		ConcurrencySafe: func(ListResourcesInput) bool { return true },
		OpenWorld:       func(ListResourcesInput) bool { return false },
		Defer:           true,
		Call: func(ctx context.Context, in ListResourcesInput, _ *tool.Env) (tool.Result, error) {
			var out []resourceEntry
			found := in.Server == ""
			var problems []string
			for _, s := range m.list() {
				if in.Server != "" && s.name != in.Server {
					continue
				}
				found = true
				cs, err := s.current(ctx)
				if err != nil {
					if in.Server != "" {
						return tool.ErrorResult(err.Error()), nil
					}
					continue
				}
				s.mu.Lock()
				has := s.resources
				s.mu.Unlock()
				if !has {
					continue
				}
				for r, err := range cs.Resources(ctx, nil) {
					if err != nil {
						problems = append(problems, fmt.Sprintf("%s: %v", s.name, err))
						break
					}
					out = append(out, resourceEntry{URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description, Server: s.name})
				}
			}
			if !found {
				return tool.ErrorResult(fmt.Sprintf("Server %q not found. Available servers: %s", in.Server, strings.Join(m.names(), ", "))), nil
			}
			if len(out) == 0 && len(problems) == 0 {
				return tool.Result{Content: []tool.Content{tool.Text("No resources found. MCP servers may still provide tools even if they have no resources.")}, Output: out}, nil
			}
			b, _ := json.Marshal(out)
			text := string(b)
			if len(problems) > 0 {
				text += "\nErrors: " + strings.Join(problems, "; ")
			}
			return tool.Result{Content: []tool.Content{tool.Text(text)}, Output: out}, nil
		},
	})
}

func newReadResource(m *Manager) tool.Tool {
	return tool.Build(tool.Def[ReadResourceInput]{
		Name:            "ReadMcpResourceTool",
		Description:     "Read a specific resource from an MCP server",
		Prompt:          "Reads one resource from an MCP server, given the server name and the resource URI (see ListMcpResourcesTool).",
		ReadOnly:        func(ReadResourceInput) bool { return true },
		ConcurrencySafe: func(ReadResourceInput) bool { return true },
		OpenWorld:       func(ReadResourceInput) bool { return false },
		Defer:           true,
		Call: func(ctx context.Context, in ReadResourceInput, _ *tool.Env) (tool.Result, error) {
			s := m.server(in.Server)
			if s == nil {
				return tool.ErrorResult(fmt.Sprintf("Server %q not found. Available servers: %s", in.Server, strings.Join(m.names(), ", "))), nil
			}
			cs, err := s.current(ctx)
			if err != nil {
				return tool.ErrorResult(err.Error()), nil
			}
			ctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
			defer cancel()
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: in.URI})
			if err != nil {
				return tool.ErrorResult(fmt.Sprintf("MCP server %q: reading %s: %v", in.Server, in.URI, err)), nil
			}
			out := tool.Result{Output: res.Contents, Reads: []string{resourcePath(in.URI)}}
			for _, c := range res.Contents {
				out.Content = append(out.Content, tool.Text(resourceText(c)))
				if c.URI != "" && c.URI != in.URI {
					out.Reads = append(out.Reads, resourcePath(c.URI))
				}
			}
			return truncate(out, m.opts.MaxOutputTokens), nil
		},
	})
}

// resourcePath is the path a resource URI names, for the secret file check: a file: URI's
// path, another scheme's host and path (config://app/.env is /app/.env), as an absolute path.
func resourcePath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return "/" + strings.TrimLeft(uri, "/")
	}
	p := u.Path
	if u.Scheme != "file" {
		p = u.Host + "/" + strings.TrimLeft(cmpOr(u.Path, u.Opaque), "/")
	}
	return path.Clean("/" + p)
}

func (m *Manager) server(name string) *server {
	for _, s := range m.list() {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (m *Manager) names() []string {
	var out []string
	for _, s := range m.list() {
		out = append(out, s.name)
	}
	return out
}
