package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// wordCountInput is the input of the WordCount tool; its JSON Schema is inferred from it.
type wordCountInput struct {
	Path string `json:"path" jsonschema:"the file to count the words of"`
}

// newWordCount defines a tool: typed input, the permission check for the file it reads, and
// the call. Everything left out (concurrency, interrupts, …) has a fail-closed default.
func newWordCount() tool.Tool {
	return tool.Build(tool.Def[wordCountInput]{
		Name:        "WordCount",
		Description: "Count the words of a text file",
		Prompt:      "Counts the words of the text file at path.",
		ReadOnly:    func(wordCountInput) bool { return true },
		CheckPermissions: func(ctx context.Context, pc *permission.Context, in wordCountInput) permission.Decision {
			return pc.CheckRead(ctx, in.Path)
		},
		Call: func(_ context.Context, in wordCountInput, env *tool.Env) (tool.Result, error) {
			abs, err := env.Permissions().ResolvePath(in.Path)
			if err != nil {
				return tool.Failf("invalid path %q: %v", in.Path, err).Result(), nil
			}
			b, err := os.ReadFile(abs)
			if err != nil {
				return tool.Failf("cannot read %s: %v", in.Path, err).Result(), nil
			}
			return tool.TextResult(fmt.Sprintf("%d words", len(strings.Fields(string(b))))), nil
		},
	})
}

// A custom tool runs through the same steps as the built-ins: decode against the schema, the
// tool's own checks, the permission decision, the call.
func ExampleBuild() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("three little words"), 0o644)

	wc := newWordCount()
	pc, _ := permission.New(permission.Config{Cwd: dir})
	env := &tool.Env{Permissions: func() *permission.Context { return pc }}
	var engine permission.Engine
	ctx := context.Background()
	for _, raw := range []string{`{"path":"notes.txt"}`, `{"path":"/etc/hostname"}`, `{"file":"notes.txt"}`} {
		in, err := wc.Decode(json.RawMessage(raw))
		if err != nil {
			fmt.Println(err)
			continue
		}
		if fail := wc.ValidateInput(ctx, in, env); fail != nil {
			fmt.Println(fail.Message)
			continue
		}
		if d, _ := engine.Decide(ctx, pc, wc, in); d.Behavior != permission.Allow {
			fmt.Println(d.Behavior, "-", d.Reason.Detail)
			continue
		}
		res, _ := wc.Call(ctx, in, env)
		fmt.Println(res.TextOf())
	}
	// Output:
	// 3 words
	// ask - outside the working directories
	// InputValidationError: WordCount failed due to the following issues:
	// The required parameter `path` is missing
	// An unexpected parameter `file` was provided
}
