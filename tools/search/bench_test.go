package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// benchTree is the Go source tree: ~11,000 files, ~150 MB.
func benchTree(b *testing.B) (string, *tool.Env) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v (the benchmark searches the Go source tree)", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	pc, err := permission.New(permission.Config{Cwd: dir})
	if err != nil {
		b.Fatal(err)
	}
	return dir, &tool.Env{Permissions: func() *permission.Context { return pc }}
}

func benchGrep(b *testing.B, opts Options, input string) {
	_, env := benchTree(b)
	g := NewGrep(opts)
	in, err := g.Decode(json.RawMessage(input))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := g.Call(context.Background(), in, env); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGrep(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Fatal("rg not on PATH")
	}
	inputs := map[string]string{
		"literal":   `{"pattern":"errors.New","output_mode":"count"}`,
		"rare":      `{"pattern":"ZZZ_never_QQQ"}`,
		"regex":     `{"pattern":"func \\w+\\(ctx context\\.Context","output_mode":"content","head_limit":0}`,
		"literal-i": `{"pattern":"syntax error","-i":true}`,
	}
	for name, in := range inputs {
		b.Run(name+"/go", func(b *testing.B) { benchGrep(b, Options{}, in) })
		b.Run(name+"/rg", func(b *testing.B) { benchGrep(b, Options{Ripgrep: rg}, in) })
	}
}

func BenchmarkGlob(b *testing.B) {
	_, env := benchTree(b)
	g := NewGlob(Options{})
	in, _ := g.Decode(json.RawMessage(`{"pattern":"**/*_test.go"}`))
	for b.Loop() {
		if _, err := g.Call(context.Background(), in, env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRgContent parses and renders content output shaped like rg's on the 547 MB tree
// of bench/gentree (19,000 files, 15 matching lines each), without running rg: the cost the
// rg engine adds to rg itself.
func BenchmarkRgContent(b *testing.B) {
	var out bytes.Buffer
	for f := range 19000 {
		for l := range 15 {
			fmt.Fprintf(&out, "./pkg%03d/sub%d/file%d.go\x00:%d\x00:\t\treturn errors.New(\"sessionJstream writer handler %d\")\n", f%300, f%7, f, 10+l*37, l)
		}
	}
	q := &query{mode: modeContent, lineNumbers: true, root: "/tree"}
	b.SetBytes(int64(out.Len()))
	for b.Loop() {
		results, err := parseRg(bufio.NewReaderSize(bytes.NewReader(out.Bytes()), 64<<10), q)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := render(q, results, "/tree", new(int), 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}
