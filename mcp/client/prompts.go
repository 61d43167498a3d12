package client

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is a prompt a connected server offers; front ends show it as the command
// /mcp__<server>__<prompt>.
type Prompt struct {
	Server, Name, Description string
	// Command is the prompt's name as a command, without the slash.
	Command string
	Args    []PromptArg
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name, Description string
	Required          bool
}

// PromptMessage is one message of a prompt, flattened to text (resources as their text,
// images as a placeholder).
type PromptMessage struct {
	Role string
	Text string
}

// Prompts lists the prompts of every connected server that offers prompts, sorted by command.
// A server whose list fails (or does not answer within the start timeout) is left out, with
// its error joined to the returned one.
func (m *Manager) Prompts(ctx context.Context) ([]Prompt, error) {
	var out []Prompt
	var errs []string
	for _, s := range m.list() {
		s.mu.Lock()
		cs, ok := s.session, s.prompts
		s.mu.Unlock()
		if cs == nil || !ok {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
		for p, err := range cs.Prompts(lctx, nil) {
			if err != nil {
				errs = append(errs, fmt.Sprintf("listing the prompts of MCP server %s: %v", s.name, err))
				break
			}
			pr := Prompt{Server: s.name, Name: p.Name, Description: p.Description, Command: ToolName(s.name, p.Name)}
			for _, a := range p.Arguments {
				pr.Args = append(pr.Args, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			out = append(out, pr)
		}
		cancel()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Command < out[j].Command })
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}

// GetPrompt runs a server's prompt with its arguments and returns its messages. A missing
// required argument is an error naming it, before the server is asked.
func (m *Manager) GetPrompt(ctx context.Context, p Prompt, args map[string]string) ([]PromptMessage, error) {
	for _, a := range p.Args {
		if a.Required && args[a.Name] == "" {
			return nil, fmt.Errorf("/%s needs the argument %s", p.Command, a.Name)
		}
	}
	s := m.server(p.Server)
	if s == nil {
		return nil, fmt.Errorf("no MCP server %q", p.Server)
	}
	cs, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: prompt %s: %w", p.Server, p.Name, err)
	}
	var out []PromptMessage
	for _, msg := range res.Messages {
		var text string
		switch c := msg.Content.(type) {
		case *mcp.TextContent:
			text = c.Text
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				text = resourceText(c.Resource)
			}
		case *mcp.ImageContent:
			text = "[image]"
		case *mcp.AudioContent:
			text = "[audio]"
		case *mcp.ResourceLink:
			text = c.URI
		}
		out = append(out, PromptMessage{Role: string(msg.Role), Text: text})
	}
	return out, nil
}
