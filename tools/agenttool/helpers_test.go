package agenttool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
)

// reply answers one model request.
type reply func(req *llm.Request) *llm.Response

// router is an in-process provider that answers each agent from its own script, chosen by
// the first line of the request's system prompt, so that a parent and its sub-agents (which
// may run concurrently) each get their replies in order.
type router struct {
	mu      sync.Mutex
	scripts map[string][]reply
	reqs    map[string][]*llm.Request
}

func newRouter() *router {
	return &router{scripts: map[string][]reply{}, reqs: map[string][]*llm.Request{}}
}

func (r *router) script(key string, replies ...reply) {
	r.scripts[key] = append(r.scripts[key], replies...)
}

func (r *router) Name() string { return "router" }

func keyOf(req *llm.Request) string {
	if len(req.System) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(req.System[0].Text, "\n")
	return first
}

func (r *router) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := keyOf(req)
	r.mu.Lock()
	cp := *req
	r.reqs[k] = append(r.reqs[k], &cp)
	s := r.scripts[k]
	if len(s) == 0 {
		r.mu.Unlock()
		return nil, fmt.Errorf("router: no reply left for %q", k)
	}
	next := s[0]
	r.scripts[k] = s[1:]
	r.mu.Unlock()
	return next(req), nil
}

func (r *router) requests(key string) []*llm.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*llm.Request(nil), r.reqs[key]...)
}

func say(text string) reply {
	return func(*llm.Request) *llm.Response {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(text)}},
			StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}
	}
}

// use calls tools; calls alternate name and JSON input.
func use(calls ...string) reply {
	return func(req *llm.Request) *llm.Response {
		var blocks []llm.Block
		for i := 0; i+1 < len(calls); i += 2 {
			id := fmt.Sprintf("toolu_%s_%d_%d", strings.ReplaceAll(keyOf(req), " ", ""), len(req.Messages), i/2)
			blocks = append(blocks, llm.ToolUse(id, calls[i], json.RawMessage(calls[i+1])))
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: blocks},
			StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}
	}
}

// lastResults returns the tool results the request sends back, by tool_use id order.
func lastResults(req *llm.Request) []llm.Block {
	if len(req.Messages) == 0 {
		return nil
	}
	var out []llm.Block
	for _, b := range req.Messages[len(req.Messages)-1].Content {
		if b.Type == llm.BlockToolResult {
			out = append(out, b)
		}
	}
	return out
}

func textOf(b llm.Block) string {
	var s strings.Builder
	for _, c := range b.Content {
		s.WriteString(c.Text)
	}
	return s.String()
}

// harness is a parent agent with the real built-in tools and the Agent tool, in a temp
// project.
type harness struct {
	t       *testing.T
	dir     string
	router  *router
	perms   *agent.Permissions
	bus     *agent.Bus
	parent  *agent.Agent
	manager *Manager
	pool    []tool.Tool
	defs    *agentdef.Set
	asker   permission.Asker
}

const parentKey = "PARENT"

type harnessOpts struct {
	rules []permission.Rule
	mode  permission.Mode
	defs  []*agentdef.Definition
	asker permission.Asker
	// bypassAvailable makes bypassPermissions available.
	bypassAvailable bool
	// observer watches the parent's and the sub-agents' runs.
	observer agent.Observer
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	dir := t.TempDir()
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\n// TODO: say hello\nfunc main() {}\n"), 0o644)
	pc, err := permission.New(permission.Config{Mode: o.mode, Cwd: dir, Home: t.TempDir(), Rules: o.rules, BypassAvailable: o.bypassAvailable})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: dir, router: newRouter(), bus: &agent.Bus{}, asker: o.asker}
	h.perms = agent.NewPermissions(pc, nil)
	sh := bash.New(bash.Options{Permissions: h.perms.Context, Cwd: dir})
	t.Cleanup(func() { sh.Close() })
	opts := tools.Options{Shell: sh, NoRipgrep: true}
	base := tools.Base(opts).Tools
	h.manager = NewManager(sh)
	t.Cleanup(func() { h.manager.Close() })
	h.defs = agentdef.Load(nil, o.defs...)
	files := tool.NewFileState()
	cfg := Config{
		Definitions: h.defs,
		Provider:    h.router,
		Model:       "parent-model",
		Engine:      &permission.Engine{},
		Permissions: h.perms,
		Asker:       o.asker,
		Tools:       func() []tool.Tool { return h.pool },
		NewTools: func(p *agent.Permissions) ([]tool.Tool, func() string, func() error) {
			csh := bash.New(bash.Options{Permissions: p.Context, Cwd: sh.Cwd()})
			return csh.Tools(), csh.Cwd, csh.Close
		},
		Files:    files,
		Cwd:      sh.Cwd,
		Bus:      h.bus,
		Manager:  h.manager,
		Observer: o.observer,
	}
	h.pool = tools.Assemble(pc, append(base, New(cfg)), nil, nil)
	h.parent = &agent.Agent{
		Provider: h.router, Model: "parent-model", System: []llm.SystemBlock{{Text: parentKey}},
		Tools: h.pool, Engine: cfg.Engine, Asker: o.asker, Permissions: h.perms,
		Env: &tool.Env{Files: files}, Cwd: sh.Cwd, Bus: h.bus, Notices: h.manager.Notices, Observer: o.observer,
	}
	return h
}

func (h *harness) run(ctx context.Context, prompt string) *agent.Result {
	h.t.Helper()
	res, err := h.parent.Run(ctx, nil, llm.UserText(prompt))
	if err != nil && ctx.Err() == nil {
		h.t.Fatalf("run: %v", err)
	}
	return res
}

// key returns the router key of a definition's sub-agents: its prompt's first line.
func key(d *agentdef.Definition) string {
	first, _, _ := strings.Cut(d.Prompt, "\n")
	return first
}

func rule(b permission.Behavior, s string) permission.Rule {
	return permission.Rule{Value: permission.ParseRule(s), Behavior: b, Source: permission.SourceSession}
}

func toolNames(ts []llm.ToolSpec) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// agentStub stands for the Agent tool in pools built without a provider.
type agentStub struct{ tool.Tool }

func (agentStub) Name() string    { return Name }
func (agentStub) Spec() tool.Spec { return tool.Spec{Name: Name, Aliases: []string{LegacyName}} }
func (agentStub) IsEnabled() bool { return true }

func t2ctx() context.Context { return context.Background() }
