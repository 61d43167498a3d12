package bash

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// BenchmarkForeground is one foreground Bash call from input to result: the output and
// directory files, starting the shell and waiting for it, settling the directory and
// formatting the result. Most of it is the shell's own start; what Reins adds around it is
// the rest, and its allocations are Reins' own.
func BenchmarkForeground(b *testing.B) {
	for _, bc := range []struct {
		name, command, want string
	}{
		{"silent", "true", "(Bash completed with no output)"},
		// Over MaxOutputChars: the result is cut and names the output file.
		{"long", "seq 1 20000", "Full output saved to: "},
		{"failing", "echo no; exit 3", "Exit code 3"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir, err := filepath.EvalSymlinks(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			pc, err := permission.New(permission.Config{Cwd: dir, Home: dir})
			if err != nil {
				b.Fatal(err)
			}
			s := New(Options{OutputDir: b.TempDir()})
			b.Cleanup(func() { s.Close() })
			env := &tool.Env{Permissions: func() *permission.Context { return pc }}
			ctx := context.Background()
			in := Input{Command: bc.command}
			for b.Loop() {
				res, err := s.call(ctx, in, env)
				if err != nil {
					b.Fatal(err)
				}
				if text := res.Content[0].Text; !strings.Contains(text, bc.want) {
					b.Fatalf("result %q, want it to hold %q", text, bc.want)
				}
			}
		})
	}
}
