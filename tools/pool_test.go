package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/bash"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fake builds a tool with a name and nothing else of interest.
func fake(name string, mcp, enabled bool) tool.Tool {
	return tool.Build(tool.Def[map[string]any]{
		Name:      name,
		RawSchema: json.RawMessage(`{"type":"object"}`),
		MCP:       mcp,
		Enabled:   func() bool { return enabled },
		Call: func(context.Context, map[string]any, *tool.Env) (tool.Result, error) {
			return tool.TextResult(name), nil
		},
	})
}

func context0(t *testing.T, rules ...string) *permission.Context {
	t.Helper()
	var rs []permission.Rule
	for _, r := range rules {
		rs = append(rs, permission.Rule{Value: permission.ParseRule(r), Behavior: permission.Deny, Source: permission.SourceProject})
	}
	pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Rules: rs})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func TestAssemble(t *testing.T) {
	builtins := []tool.Tool{
		fake("Write", false, true), fake("Bash", false, true), fake("Read", false, true), fake("Edit", false, true),
		fake("glob", false, true), fake("Grep", false, true), fake("TodoWrite", false, false),
		fake("ListMcpResourcesTool", false, true), fake("SyntheticOutput", false, true),
	}
	mcps := []tool.Tool{
		fake("mcp__zeta__run", true, true), fake("mcp__alpha__b", true, true), fake("mcp__alpha__a", true, true),
		fake("mcp__gone__x", true, true), fake("mcp__gone__y", true, true), fake("Bash", true, true),
	}
	tests := []struct {
		name  string
		rules []string
		env   map[string]string
		want  []string
	}{
		{
			name: "sorted built-ins, then sorted MCP tools; disabled and special tools dropped; built-ins win",
			want: []string{"Bash", "Edit", "glob", "Grep", "Read", "Write", "mcp__alpha__a", "mcp__alpha__b", "mcp__gone__x", "mcp__gone__y", "mcp__zeta__run"},
		},
		{
			name:  "tool-wide deny rules remove tools, content rules do not",
			rules: []string{"Write", "Bash(rm:*)", "mcp__gone", "mcp__alpha__b"},
			want:  []string{"Bash", "Edit", "glob", "Grep", "Read", "mcp__alpha__a", "mcp__zeta__run"},
		},
		{
			name:  "server-level wildcard",
			rules: []string{"mcp__zeta__*"},
			want:  []string{"Bash", "Edit", "glob", "Grep", "Read", "Write", "mcp__alpha__a", "mcp__alpha__b", "mcp__gone__x", "mcp__gone__y"},
		},
		{
			name:  "simple mode keeps Bash, Read and Edit of the built-ins",
			env:   map[string]string{"REINS_SIMPLE": "true"},
			rules: []string{"Edit", "mcp__gone"},
			want:  []string{"Bash", "Read", "mcp__alpha__a", "mcp__alpha__b", "mcp__zeta__run"},
		},
		{
			name: "REINS_SIMPLE=0 is not simple mode",
			env:  map[string]string{"REINS_SIMPLE": "0"},
			want: []string{"Bash", "Edit", "glob", "Grep", "Read", "Write", "mcp__alpha__a", "mcp__alpha__b", "mcp__gone__x", "mcp__gone__y", "mcp__zeta__run"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Assemble(context0(t, tt.rules...), builtins, mcps, func(k string) string { return tt.env[k] })
			if diff := cmp.Diff(tt.want, Names(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if b, _ := Find(got, "Bash"); b != nil && b.Spec().MCP {
				t.Error("the MCP tool named Bash replaced the built-in")
			}
		})
	}
}

// newShell returns a shell closed at the end of the test.
func newShell(t *testing.T) *bash.Shell {
	sh := bash.New(bash.Options{})
	t.Cleanup(func() { sh.Close() })
	return sh
}

func TestBaseHasEveryBuiltin(t *testing.T) {
	got := Names(Base(Options{Shell: newShell(t), NoRipgrep: true}).Tools)
	want := []string{"AskUserQuestion", "Bash", "Edit", "EnterPlanMode", "ExitPlanMode", "Glob", "Grep", "NotebookEdit",
		"Read", "TaskOutput", "TaskStop", "TodoWrite", "WebFetch", "Write"}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestBuiltinSchemasResolve: every built-in's schema resolves. Build resolves a schema the
// program wrote only when the first input is decoded, so this is where a broken one shows.
func TestBuiltinSchemasResolve(t *testing.T) {
	for _, tl := range Base(Options{Shell: newShell(t), NoRipgrep: true}).Tools {
		t.Run(tl.Name(), func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("decoding an input: %v", r)
				}
			}()
			tl.Decode(json.RawMessage(`{}`)) // the input may be refused; the schema must resolve
		})
	}
}

// TestPoolGolden guards the serialized tool list: name, prompt and schema of every tool, in
// order. It must be byte-identical from run to run, whatever order the tools are built in.
func TestPoolGolden(t *testing.T) {
	ctx := context.Background()
	pc := context0(t)
	base := Base(Options{Shell: newShell(t), NoRipgrep: true}).Tools
	first, err := Specs(ctx, Assemble(pc, base, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(first, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')

	for i := range 5 {
		shuffled := slices.Clone(base)
		rand.New(rand.NewPCG(uint64(i), 7)).Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		again, err := Specs(ctx, Assemble(pc, shuffled, nil, nil))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(again, "", "  ")
		if !bytes.Equal(append(b, '\n'), got) {
			t.Fatalf("serialization differs after shuffling the built-ins (round %d)", i)
		}
	}

	golden := filepath.Join("testdata", "pool.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./tools -run TestPoolGolden -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("tool list changed (-golden +now); if intended, run with -update:\n%s", diff)
	}
}

func TestFilterForAgent(t *testing.T) {
	ts := []tool.Tool{fake("Bash", false, true), fake("AskUserQuestion", false, true), fake("TaskOutput", false, true),
		fake("Agent", false, true), fake("Read", false, true), fake("NotebookEdit", false, true), fake("LSP", false, true),
		fake("mcp__s__t", true, true)}
	if diff := cmp.Diff([]string{"Bash", "Read", "NotebookEdit", "LSP", "mcp__s__t"}, Names(FilterForAgent(ts, false))); diff != "" {
		t.Errorf("sync (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Bash", "Read", "NotebookEdit", "mcp__s__t"}, Names(FilterForAgent(ts, true))); diff != "" {
		t.Errorf("async (-want +got):\n%s", diff)
	}
	// The sets are fresh copies: changing one does not change the next.
	s := AllAgentDisallowed()
	s[0] = "x"
	if AllAgentDisallowed()[0] != "TaskOutput" {
		t.Error("AllAgentDisallowed is shared mutable state")
	}
}

func TestFind(t *testing.T) {
	base := Base(Options{Shell: newShell(t), NoRipgrep: true}).Tools
	for name, want := range map[string]string{"Grep": "Grep", "BashOutputTool": "TaskOutput", "KillShell": "TaskStop", "Nope": ""} {
		got, ok := Find(base, name)
		if (want == "") == ok || (ok && got.Name() != want) {
			t.Errorf("Find(%q) = %v, %v", name, got, ok)
		}
	}
}

func TestCompareNames(t *testing.T) {
	names := []string{"mcp__b", "Write", "bash", "Bash", "ExitPlanMode", "EnterPlanMode", "a_b", "aB"}
	slices.SortFunc(names, CompareNames)
	want := []string{"a_b", "aB", "Bash", "bash", "EnterPlanMode", "ExitPlanMode", "mcp__b", "Write"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPoolGoldenWithMCP extends the golden test to a pool with MCP tools: the built-in prefix
// of the serialized list is byte-identical to the golden file whatever servers connect, and the
// MCP tools follow in name order, whatever order they arrive in.
func TestPoolGoldenWithMCP(t *testing.T) {
	ctx := context.Background()
	pc := context0(t)
	base := Base(Options{Shell: newShell(t), NoRipgrep: true}).Tools
	want, err := os.ReadFile(filepath.Join("testdata", "pool.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden []llm.ToolSpec
	if err := json.Unmarshal(want, &golden); err != nil {
		t.Fatal(err)
	}
	mcps := []tool.Tool{fake("mcp__zeta__run", true, true), fake("mcp__Alpha__b", true, true), fake("mcp__alpha__a", true, true), fake("mcp__m__x-y", true, true)}
	var first []byte
	for i := range 5 {
		shuffled := slices.Clone(mcps)
		rand.New(rand.NewPCG(uint64(i), 11)).Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		specs, err := Specs(ctx, Assemble(pc, base, shuffled, nil))
		if err != nil {
			t.Fatal(err)
		}
		prefix, _ := json.MarshalIndent(specs[:len(golden)], "", "  ")
		if string(append(prefix, '\n')) != string(want) {
			t.Fatalf("the built-in prefix differs from testdata/pool.golden.json when MCP tools are present")
		}
		var names []string
		for _, s := range specs[len(golden):] {
			names = append(names, s.Name)
		}
		if diff := cmp.Diff([]string{"mcp__alpha__a", "mcp__Alpha__b", "mcp__m__x-y", "mcp__zeta__run"}, names); diff != "" {
			t.Errorf("MCP tools after the built-ins (-want +got):\n%s", diff)
		}
		all, _ := json.Marshal(specs)
		if first == nil {
			first = all
		} else if string(all) != string(first) {
			t.Fatalf("serialization differs after shuffling the MCP tools (round %d)", i)
		}
	}
}

// TestBaseClosesTheShellItStarts checks ownership: Close ends a Shell Base created, and
// leaves one passed in Options to its owner.
func TestBaseClosesTheShellItStarts(t *testing.T) {
	own := Base(Options{NoRipgrep: true})
	if own.Shell == nil {
		t.Fatal("Base made no Shell")
	}
	if err := own.Close(); err != nil {
		t.Fatal(err)
	}
	if err := own.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if !shellClosed(t, own) {
		t.Error("the Shell Base started is still open after Close")
	}

	sh := newShell(t)
	lent := Base(Options{Shell: sh, NoRipgrep: true})
	if err := lent.Close(); err != nil {
		t.Fatal(err)
	}
	if shellClosed(t, lent) {
		t.Error("Close closed a Shell it was given")
	}
}

// shellClosed runs a background command through the Bash tool of b: a closed Shell refuses.
func shellClosed(t *testing.T, b *Builtins) bool {
	t.Helper()
	bashTool, ok := Find(b.Tools, "Bash")
	if !ok {
		t.Fatal("no Bash tool")
	}
	in, err := bashTool.Decode(json.RawMessage(`{"command":"sleep 0","run_in_background":true}`))
	if err != nil {
		t.Fatal(err)
	}
	pc, err := permission.New(permission.Config{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env := &tool.Env{Permissions: func() *permission.Context { return pc }, Values: map[any]any{}}
	_, err = bashTool.Call(context.Background(), in, env)
	return errors.Is(err, bash.ErrClosed)
}
