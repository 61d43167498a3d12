package permission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchRules spreads n rules over every source and behaviour, in the mix a large policy has:
// Bash prefixes, Read and Edit path rules of every anchor, MCP and WebFetch rules.
func benchRules(n int, home string) []Rule {
	var out []Rule
	behaviors := []Behavior{Allow, Ask, Deny}
	for i := range n {
		var v string
		switch i % 6 {
		case 0:
			v = fmt.Sprintf("Bash(tool%d sub:*)", i)
		case 1:
			v = fmt.Sprintf("Read(src/pkg%d/**)", i)
		case 2:
			v = fmt.Sprintf("Edit(/gen/out%d/*.go)", i)
		case 3:
			v = fmt.Sprintf("Read(~/secrets%d/**)", i)
		case 4:
			v = fmt.Sprintf("Edit(//var/data%d/**)", i)
		default:
			v = fmt.Sprintf("WebFetch(domain:host%d.example.com)", i)
		}
		src := Sources[i%len(Sources)]
		r := Rule{Value: ParseRule(v), Behavior: behaviors[i%3], Source: src}
		if src == SourceUser {
			r.Root = home
		}
		out = append(out, r)
	}
	return out
}

func benchContext(b *testing.B, mode Mode) (*Context, string) {
	return benchContextN(b, mode, 1000)
}

func benchContextN(b *testing.B, mode Mode, n int) (*Context, string) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	proj := filepath.Join(root, "proj")
	file := filepath.Join(proj, "src", "app", "main.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	pc, err := New(Config{Mode: mode, Cwd: proj, Home: root, Rules: benchRules(n, root)})
	if err != nil {
		b.Fatal(err)
	}
	return pc, file
}

// BenchmarkDecideRead is one Read decision against 1,000 rules from all sources.
func BenchmarkDecideRead(b *testing.B) {
	pc, file := benchContext(b, ModeDefault)
	tool := pathTool{"Read", false}
	var e Engine
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		d, _ := e.Decide(ctx, pc, tool, file)
		if d.Behavior != Allow {
			b.Fatalf("decision %s", d.Behavior)
		}
	}
}

// BenchmarkDecideEdit is one Edit decision against 1,000 rules from all sources.
func BenchmarkDecideEdit(b *testing.B) {
	pc, file := benchContext(b, ModeAcceptEdits)
	tool := pathTool{"Edit", true}
	var e Engine
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		d, _ := e.Decide(ctx, pc, tool, file)
		if d.Behavior != Allow {
			b.Fatalf("decision %s (%s)", d.Behavior, d.Message)
		}
	}
}

// BenchmarkNewContext is building a context from 1,000 rules (parsing and indexing once).
func BenchmarkNewContext(b *testing.B) {
	rules := benchRules(1000, "/home/u")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Config{Cwd: "/proj", Home: "/home/u", Rules: rules}); err != nil {
			b.Fatal(err)
		}
	}
}

// scaleCounts are the rule counts of the scaling benchmarks (bench/permscale.sh).
var scaleCounts = []int{10, 100, 1000, 10000}

// BenchmarkScaleRead is one Read decision as the number of rules grows; a decision should
// cost about the same whatever the count.
func BenchmarkScaleRead(b *testing.B) {
	for _, n := range scaleCounts {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			pc, file := benchContextN(b, ModeDefault, n)
			tool := pathTool{"Read", false}
			var e Engine
			ctx := context.Background()
			// The first decision builds the rule indexes, once per set of rules.
			if d, _ := e.Decide(ctx, pc, tool, file); d.Behavior != Allow {
				b.Fatalf("decision %s", d.Behavior)
			}
			b.ReportAllocs()
			for b.Loop() {
				if d, _ := e.Decide(ctx, pc, tool, file); d.Behavior != Allow {
					b.Fatalf("decision %s", d.Behavior)
				}
			}
		})
	}
}

// BenchmarkScaleNewContext is building a context as the number of rules grows.
func BenchmarkScaleNewContext(b *testing.B) {
	for _, n := range scaleCounts {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			rules := benchRules(n, "/home/u")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(Config{Cwd: "/proj", Home: "/home/u", Rules: rules}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
