package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/mcp/client"
)

// initialize applies an SDK caller's initialize request: its agent definitions join the Agent
// tool's, its hook callbacks join the session's hooks, and its system prompt replaces the
// session's from the next turn. Everything is checked before anything is applied, so a refused
// request changes nothing.
func (s *runSetup) initialize(ctx context.Context, srv *sdkproto.Server, req sdkproto.InitializeRequest) error {
	if err := sdkproto.CheckSupported(req, s.structured != nil); err != nil {
		return err
	}
	var defs []*agentdef.Definition
	if len(req.Agents) > 0 {
		data, err := json.Marshal(req.Agents)
		if err != nil {
			return fmt.Errorf("initialize agents: %w", err)
		}
		// The caller's definitions are the --agents flag's, with its validation.
		if defs, err = agentdef.ParseJSON("initialize agents", data, agentdef.SourceFlag); err != nil {
			return err
		}
	}
	callbacks, err := srv.HookCallbacks(req.Hooks)
	if err != nil {
		return err
	}
	if off := s.env.loaded.NonManagedHooksOff(); off != "" && len(callbacks) > 0 {
		// Refused, not dropped: the caller expects its callbacks to guard something.
		return fmt.Errorf("initialize hooks: SDK hook callbacks cannot run: %s", off)
	}
	if len(req.SystemPrompt) > 0 || req.AppendSystemPrompt != nil {
		env := s.prompt
		if len(req.SystemPrompt) > 0 {
			env.Replace = strings.Join(req.SystemPrompt, "\n\n")
		}
		if req.AppendSystemPrompt != nil {
			env.Append = *req.AppendSystemPrompt
		}
		system, err := app.SystemPrompt(ctx, s.agent.Tools, env)
		if err != nil {
			return err
		}
		srv.SetSystem(system)
	}
	if len(callbacks) > 0 {
		if err := s.hooks.Add(callbacks...); err != nil {
			return err
		}
	}
	s.defs.Add(defs...)
	return nil
}

// agentInfos lists the agent types for initialize's answer.
func (s *runSetup) agentInfos() []sdkproto.AgentInfo {
	var out []sdkproto.AgentInfo
	for _, d := range s.defs.All() {
		out = append(out, sdkproto.AgentInfo{Name: d.Name, Description: d.Description, Model: d.Model})
	}
	return out
}

// lateElicitor is the MCP servers' Elicitor, fixed when they start; the front end that
// answers (the SDK caller) connects to it later. Until then it is headless.
type lateElicitor struct {
	mu sync.Mutex
	e  client.Elicitor
}

func (l *lateElicitor) set(e client.Elicitor) {
	l.mu.Lock()
	l.e = e
	l.mu.Unlock()
}

func (l *lateElicitor) Elicit(ctx context.Context, req client.ElicitRequest) (client.ElicitResult, error) {
	l.mu.Lock()
	e := l.e
	l.mu.Unlock()
	if e == nil {
		return client.ElicitResult{}, client.ErrNoElicitor
	}
	return e.Elicit(ctx, req)
}

// sdkElicitor puts MCP servers' requests for input to the SDK caller (its onElicitation).
type sdkElicitor struct{ srv *sdkproto.Server }

func (e sdkElicitor) Elicit(ctx context.Context, req client.ElicitRequest) (client.ElicitResult, error) {
	res, err := e.srv.Elicit(ctx, sdkproto.ElicitationRequest{MCPServerName: req.Server, Message: req.Message, Mode: req.Mode,
		URL: req.URL, RequestedSchema: req.Schema})
	if err != nil {
		return client.ElicitResult{}, err
	}
	return client.ElicitResult{Action: res.Action, Content: res.Content}, nil
}
