package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"pgregory.net/rapid"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// The one-pipeline property: a call is decided the same way whichever front end carries it —
// the agent loop, `reins mcp serve`, or a program that embeds toolcall — and what runs is
// never looser than deciding it fresh.

type fileIn struct {
	Path  string `json:"path"`
	Write bool   `json:"write,omitempty"`
}

// fileTool is a file tool whose check is the shared read or write check; it records what ran.
func fileTool(ran *[]fileIn, mu *sync.Mutex) tool.Tool {
	return tool.Build(tool.Def[fileIn]{Name: "Touch", Description: "touches a file",
		CheckPermissions: func(ctx context.Context, pc *permission.Context, in fileIn) permission.Decision {
			if in.Write {
				return pc.CheckWrite(ctx, in.Path)
			}
			return pc.CheckRead(ctx, in.Path)
		},
		Call: func(_ context.Context, in fileIn, _ *tool.Env) (tool.Result, error) {
			mu.Lock()
			*ran = append(*ran, in)
			mu.Unlock()
			return tool.TextResult("touched " + in.Path), nil
		}})
}

var (
	frontPaths = []string{"a.txt", "src/b.go", ".env", ".git/config", "../outside.txt"}
	frontRules = []string{"Edit", "Read", "Edit(src/**)", "Read(.env)", "Edit(a.txt)", "Read(**)"}
)

type frontCase struct {
	mode   permission.Mode
	rules  []permission.Rule
	input  fileIn
	answer permission.Behavior // what an ask is answered: allow or deny
	// substitute, when set, is what the first answer substitutes (agent and embedder only:
	// an MCP client answers an elicitation, it cannot rewrite the call).
	substitute *fileIn
}

func drawFrontCase(t *rapid.T) frontCase {
	c := frontCase{
		mode:   rapid.SampledFrom([]permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeDontAsk, permission.ModeBypass}).Draw(t, "mode"),
		input:  fileIn{Path: rapid.SampledFrom(frontPaths).Draw(t, "path"), Write: rapid.Bool().Draw(t, "write")},
		answer: rapid.SampledFrom([]permission.Behavior{permission.Allow, permission.Deny}).Draw(t, "answer"),
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "nrules") {
		c.rules = append(c.rules, permission.Rule{Value: permission.ParseRule(rapid.SampledFrom(frontRules).Draw(t, fmt.Sprint("rule", i))),
			Behavior: rapid.SampledFrom([]permission.Behavior{permission.Allow, permission.Ask, permission.Deny}).Draw(t, fmt.Sprint("behavior", i)),
			Source:   permission.SourceUser})
	}
	if rapid.Bool().Draw(t, "substitutes") {
		c.substitute = &fileIn{Path: rapid.SampledFrom(frontPaths).Draw(t, "subpath"), Write: rapid.Bool().Draw(t, "subwrite")}
	}
	return c
}

// answerer answers asks as the case says, recording what it was shown and allowed as shown.
type answerer struct {
	c       frontCase
	mu      sync.Mutex
	asks    int
	shownOK []fileIn
}

func (a *answerer) Ask(_ context.Context, req permission.AskRequest) (permission.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asks++
	in, _ := req.Input.(fileIn)
	if a.asks == 1 && a.c.substitute != nil {
		if *a.c.substitute == in {
			a.shownOK = append(a.shownOK, in) // no substitute after all
		}
		raw, _ := json.Marshal(a.c.substitute)
		return permission.Decision{Behavior: permission.Allow, UpdatedInput: json.RawMessage(raw)}, nil
	}
	if a.c.answer == permission.Allow {
		a.shownOK = append(a.shownOK, in)
		return permission.Decision{Behavior: permission.Allow}, nil
	}
	return permission.Decision{Behavior: permission.Deny, Message: "no"}, nil
}

func frontProject(t *testing.T) string {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "proj")
	for _, p := range []string{"a.txt", "src/b.go", ".env", ".git/config"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644)
	}
	return dir
}

func frontContext(t *rapid.T, dir string, c frontCase) *permission.Context {
	pc, err := permission.New(permission.Config{Cwd: dir, Home: filepath.Join(dir, "..", "home"), Mode: c.mode, Rules: c.rules,
		BypassAvailable: c.mode == permission.ModeBypass})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// viaEmbedder runs the call with toolcall directly.
func viaEmbedder(t *rapid.T, dir string, c frontCase) ([]fileIn, *answerer) {
	var ran []fileIn
	var mu sync.Mutex
	tl := fileTool(&ran, &mu)
	a := &answerer{c: c}
	p := toolcall.Pipeline{Asker: a}
	raw, _ := json.Marshal(c.input)
	in, err := toolcall.Decode(tl, raw)
	if err != nil {
		t.Fatal(err)
	}
	p.Run(context.Background(), toolcall.Call{Tool: tl, Input: in, Raw: raw, Permissions: frontContext(t, dir, c), Env: &tool.Env{}})
	return ran, a
}

// viaAgent runs the call as a model's tool_use in the agent loop.
func viaAgent(t *rapid.T, dir string, c frontCase) ([]fileIn, *answerer) {
	var ran []fileIn
	var mu sync.Mutex
	raw, _ := json.Marshal(c.input)
	prov := llmtest.NewScript(
		llmtest.Respond(llmtest.Response(llm.StopToolUse, llm.ToolUse("toolu_1", "Touch", raw))),
		llmtest.Respond(llmtest.Response(llm.StopEndTurn, llm.Text("done"))))
	a := &answerer{c: c}
	ag := &agent.Agent{Provider: prov, Model: "m", Tools: []tool.Tool{fileTool(&ran, &mu)},
		Permissions: agent.NewPermissions(frontContext(t, dir, c), nil), Asker: a}
	if _, err := ag.Run(context.Background(), nil, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	return ran, a
}

// viaServe runs the call as an MCP client's tools/call, the ask answered by elicitation.
func viaServe(tt *testing.T, t *rapid.T, dir string, c frontCase) []fileIn {
	var ran []fileIn
	var mu sync.Mutex
	s, err := New(tt.Context(), Options{Name: "reins-test", Version: "0", Permissions: frontContext(t, dir, c),
		NewToolset: func(func() *permission.Context) Toolset { return Toolset{Tools: []tool.Tool{fileTool(&ran, &mu)}} }})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(tt, s, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if c.answer == permission.Allow {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": choiceOnce}}, nil
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	if _, err := cs.CallTool(tt.Context(), &mcp.CallToolParams{Name: "Touch", Arguments: c.input}); err != nil {
		t.Fatal(err)
	}
	return ran
}

func TestPropertyFrontEndsDecideAlike(t *testing.T) {
	dir := frontProject(t)
	rapid.Check(t, func(rt *rapid.T) {
		c := drawFrontCase(rt)
		embedded, a := viaEmbedder(rt, dir, c)
		looped, _ := viaAgent(rt, dir, c)
		if fmt.Sprint(embedded) != fmt.Sprint(looped) {
			rt.Fatalf("the agent ran %v, an embedder %v", looped, embedded)
		}
		if c.substitute == nil {
			if served := viaServe(t, rt, dir, c); fmt.Sprint(served) != fmt.Sprint(embedded) {
				rt.Fatalf("mcp serve ran %v, an embedder %v", served, embedded)
			}
		}
		// Never looser than deciding fresh: what ran was allowed as it is, or shown and approved,
		// or the answerer's own substitute that only the absence of an allow rule asks about.
		for _, in := range embedded {
			if slices.Contains(a.shownOK, in) {
				continue
			}
			var e permission.Engine
			d, err := e.Decide(context.Background(), frontContext(rt, dir, c), fileTool(new([]fileIn), new(sync.Mutex)), in)
			own := c.substitute != nil && *c.substitute == in && d.Behavior == permission.Ask && permission.AgainReason(d) == ""
			if err != nil || d.Behavior != permission.Allow && !own {
				rt.Fatalf("ran %+v, which was neither shown and approved, nor allowed fresh (%s), nor the answerer's own input only no allow rule asks about", in, d.Behavior)
			}
		}
	})
}
