package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// fixture is a project directory with a permission context and a file state.
type fixture struct {
	t   *testing.T
	dir string
	pc  *permission.Context
	env *tool.Env
}

func newFixture(t *testing.T, rules ...permission.Rule) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pc, err := permission.New(permission.Config{Cwd: dir, Home: filepath.Join(dir, "home"), Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, dir: dir, pc: pc}
	f.env = &tool.Env{Permissions: func() *permission.Context { return f.pc }, Files: tool.NewFileState()}
	return f
}

func (f *fixture) path(name string) string { return filepath.Join(f.dir, name) }

func (f *fixture) write(name string, content string) string {
	f.t.Helper()
	p := f.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// outcome is what one call through Decode, ValidateInput and Call produced.
type outcome struct {
	res tool.Result
	// stage is where the call stopped: "decode", "validate", "call" (an error or an error
	// result) or "ok".
	stage string
	err   string
}

// run takes input through the steps the agent runs, minus the permission decision.
func (f *fixture) run(tl tool.Tool, input any) outcome {
	f.t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		f.t.Fatal(err)
	}
	in, err := tl.Decode(raw)
	if err != nil {
		return outcome{stage: "decode", err: err.Error()}
	}
	ctx := context.Background()
	if fail := tl.ValidateInput(ctx, in, f.env); fail != nil {
		return outcome{stage: "validate", err: fail.Message}
	}
	res, err := tl.Call(ctx, in, f.env)
	if err != nil {
		return outcome{stage: "call", err: err.Error()}
	}
	if res.IsError {
		return outcome{stage: "call", err: res.TextOf(), res: res}
	}
	return outcome{stage: "ok", res: res}
}

// mustOK runs input and fails unless the call succeeded.
func (f *fixture) mustOK(tl tool.Tool, input any) tool.Result {
	f.t.Helper()
	o := f.run(tl, input)
	if o.stage != "ok" {
		f.t.Fatalf("%s %v: stopped at %s: %s", tl.Name(), input, o.stage, o.err)
	}
	return o.res
}

// mustFail runs input and checks that it stopped at stage with message want.
func (f *fixture) mustFail(tl tool.Tool, input any, stage, want string) {
	f.t.Helper()
	o := f.run(tl, input)
	if o.stage != stage || o.err != want {
		f.t.Errorf("%s %v:\n got %s: %q\nwant %s: %q", tl.Name(), input, o.stage, o.err, stage, want)
	}
}

type obj = map[string]any

func denyRule(tool, content string) permission.Rule {
	return permission.Rule{Value: permission.RuleValue{Tool: tool, Content: content}, Behavior: permission.Deny, Source: permission.SourceSession}
}
