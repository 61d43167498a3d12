package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// newEnv returns a session rooted at dir with the given rules.
func newEnv(t testing.TB, dir string, rules ...permission.Rule) *tool.Env {
	t.Helper()
	pc, err := permission.New(permission.Config{Cwd: dir, Home: t.TempDir(), Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return &tool.Env{Permissions: func() *permission.Context { return pc }, Values: map[any]any{}}
}

func denyRead(pattern string) permission.Rule {
	return permission.Rule{Value: permission.RuleValue{Tool: "Read", Content: pattern}, Behavior: permission.Deny, Source: permission.SourceSession}
}

// run decodes, validates and calls, as the agent loop does (permissions aside). A failure
// before the call comes back as an error result with the message.
func run(t testing.TB, tl tool.Tool, env *tool.Env, input string) tool.Result {
	t.Helper()
	ctx := context.Background()
	in, err := tl.Decode(json.RawMessage(input))
	if err != nil {
		return tool.ErrorResult(err.Error())
	}
	if fail := tl.ValidateInput(ctx, in, env); fail != nil {
		return fail.Result()
	}
	res, err := tl.Call(ctx, in, env)
	if err != nil {
		t.Fatalf("%s %s: %v", tl.Name(), input, err)
	}
	return res
}

// writeTree creates files (path → content) under dir. Each file gets a distinct mtime, in
// the order of the paths slice, one second apart, so newest-first orders are stable.
func writeTree(t testing.TB, dir string, files [][2]string) {
	t.Helper()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f[0]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

// renderContent is writeContent into memory: the page without its final '\n'.
func renderContent(q *query, results []*fileResult, headLimit *int, offset int) (string, int, *int) {
	var w textSink
	n, limit, err := writeContent(&w, q, results, headLimit, offset)
	if err != nil {
		panic(err)
	}
	w.trimNewline()
	text, _, _ := w.finish()
	return text, n, limit
}
