package sdk

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/mcp/client"
)

// initialize applies an SDK caller's initialize request: its agent definitions join the Agent
// tool's, its hook callbacks join the session's hooks, and its system prompt replaces the
// session's from the next turn. Its MCP servers and plugins were read at launch
// (--await-initialize); here they are only checked to be that set, loaded. Everything is checked before anything is applied, so a refused
// request changes nothing.
func initialize(ctx context.Context, a *app.App, srv *sdkproto.Server, req sdkproto.InitializeRequest, launch launchInit) error {
	if err := launchServers(launch.mcp, req.MCPServers); err != nil {
		return err
	}
	if err := launchPlugins(launch, req.Plugins, a.Ext.InitializePluginsErr); err != nil {
		return err
	}
	check := req
	check.MCPServers = nil // started at launch, checked above
	if err := sdkproto.CheckSupported(check, a.Structured != nil); err != nil {
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
		if err := checkAgentServers(defs, a.Ext.MCP.Status()); err != nil {
			return err
		}
	}
	callbacks, err := srv.HookCallbacks(req.Hooks)
	if err != nil {
		return err
	}
	if off := a.Settings.Loaded.NonManagedHooksOff(); off != "" && len(callbacks) > 0 {
		// Refused, not dropped: the caller expects its callbacks to guard something.
		return fmt.Errorf("initialize hooks: SDK hook callbacks cannot run: %s", off)
	}
	if len(req.SystemPrompt) > 0 || req.AppendSystemPrompt != nil {
		env := a.Prompt
		if len(req.SystemPrompt) > 0 {
			env.Replace = strings.Join(req.SystemPrompt, "\n\n")
		}
		if req.AppendSystemPrompt != nil {
			env.Append = *req.AppendSystemPrompt
		}
		system, err := app.SystemPrompt(ctx, a.Agent.Tools, env)
		if err != nil {
			return err
		}
		srv.SetSystem(system)
	}
	if len(callbacks) > 0 {
		if err := a.Ext.Hooks.Add(callbacks...); err != nil {
			return err
		}
	}
	a.Ext.Agents.Add(defs...)
	return nil
}

// checkAgentServers refuses a definition that names an MCP server the session does not have:
// its sub-agent would run without tools the caller counts on.
func checkAgentServers(defs []*agentdef.Definition, servers []client.Status) error {
	var names []string
	for _, st := range servers {
		names = append(names, st.Name)
	}
	for _, d := range defs {
		for _, n := range d.MCPServers {
			if !slices.Contains(names, n) {
				return fmt.Errorf("initialize agents: agent %q: \"mcpServers\" names %q, which is not an MCP server of this session (its servers: %s)",
					d.Name, n, cmp.Or(strings.Join(names, ", "), "none"))
			}
		}
	}
	return nil
}

// agentInfos lists the agent types for initialize's answer.
func agentInfos(a *app.App) []sdkproto.AgentInfo {
	var out []sdkproto.AgentInfo
	for _, d := range a.Ext.Agents.All() {
		out = append(out, sdkproto.AgentInfo{Name: d.Name, Description: d.Description, Model: d.Model})
	}
	return out
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

// launchServers accepts an initialize request's mcpServers only when they are the set read at
// launch under --await-initialize, which started as --mcp-config servers do; any other set
// would run the session without servers the caller counts on, or with ones nobody started.
func launchServers(launch json.RawMessage, sent map[string]json.RawMessage) error {
	if len(sent) == 0 {
		return nil
	}
	if launch == nil {
		return errors.New("initialize mcpServers: MCP servers are read from initialize only at launch with --await-initialize (the SDK's mcpServersDelivery: 'initialize'); without it pass them with --mcp-config")
	}
	var atLaunch, now any
	b, err := json.Marshal(sent)
	if err != nil {
		return fmt.Errorf("initialize mcpServers: %w", err)
	}
	if json.Unmarshal(launch, &atLaunch) != nil || json.Unmarshal(b, &now) != nil || !reflect.DeepEqual(atLaunch, now) {
		return errors.New("initialize mcpServers: not the set read at launch (servers are read from the first initialize only)")
	}
	return nil
}

// launchPlugins accepts an initialize request's plugins only when they are the list read at
// launch under --await-initialize and the session loaded them all (loadErr is why it could
// not: a folder that is not a plugin, a broken plugin.json with its file:line:col).
func launchPlugins(launch launchInit, sent []json.RawMessage, loadErr error) error {
	if len(sent) == 0 {
		return nil
	}
	if launch.plugins == nil {
		return errors.New("initialize plugins: plugins are read from initialize only at launch with --await-initialize (the SDK's pluginDelivery: 'initialize'); without it pass them with --plugin-dir")
	}
	if launch.pluginsErr != nil {
		return launch.pluginsErr
	}
	if loadErr != nil {
		return fmt.Errorf("initialize plugins: %w", loadErr)
	}
	var atLaunch, now any
	b, err := json.Marshal(sent)
	if err != nil {
		return fmt.Errorf("initialize plugins: %w", err)
	}
	if json.Unmarshal(launch.plugins, &atLaunch) != nil || json.Unmarshal(b, &now) != nil || !reflect.DeepEqual(atLaunch, now) {
		return errors.New("initialize plugins: not the list read at launch (plugins are read from the first initialize only)")
	}
	return nil
}
