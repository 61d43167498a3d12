//go:build unix

package markdown

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
	"golang.org/x/sys/unix"
)

// goldmarkGFM is a parser with goldmark's own GitHub extensions (Table, Strikethrough,
// TaskList) where mdParser has gfm.go's. gfm.go stays because the extension package costs
// every run of reins at init (seven regexps compiled: about 0.6-2.9 ms and 264 KB on a
// `reins --version` of about 11 ms) and differs from GitHub where gfm.go follows it
// (TestGFMBesideGoldmarkExtensions); rendering a long transcript costs the same with both
// (BenchmarkRenderParsers). docs/architecture.md, "Hand-written beside a library".
var goldmarkGFM = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(extension.NewTaskCheckBoxParser(), 0),
			util.Prioritized(extension.NewStrikethroughParser(), 500))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(extension.NewTableParagraphTransformer(), 200))...),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
	)
})

// TestGFMBesideGoldmarkExtensions: every golden case renders the same through gfm.go's
// parsers and goldmark's extensions, and where the two differ gfm.go gives what GitHub
// renders.
func TestGFMBesideGoldmarkExtensions(t *testing.T) {
	for _, c := range cases {
		for _, w := range goldenWidths {
			r := New(w, Dark)
			if ours, lib := r.render(mdParser(), c.src), r.render(goldmarkGFM(), c.src); ours != lib {
				t.Errorf("%s at %d: gfm.go and goldmark's extensions differ:\nours:\n%s\ngoldmark:\n%s", c.name, w, ours, lib)
			}
		}
	}
	differences := []struct{ src, github, goldmark string }{
		// GitHub strikes only between runs of the same length; goldmark pairs any two.
		{"~~a~", "  ~~a~", "  ~a"},
		{"~a~~", "  ~a~~", "  a~"},
		// A task box needs white space after it on GitHub; goldmark takes "[x]a" too.
		{"- [x]a", "  • [x]a", "  • [x] a"},
	}
	r := New(80, Plain)
	for _, d := range differences {
		if got := r.render(mdParser(), d.src); got != d.github {
			t.Errorf("gfm.go renders %q as %q, want GitHub's %q", d.src, got, d.github)
		}
		if got := r.render(goldmarkGFM(), d.src); got != d.goldmark {
			t.Errorf("goldmark's extensions render %q as %q, want %q (has goldmark changed? then this row goes)", d.src, got, d.goldmark)
		}
	}
}

// BenchmarkRenderParsers renders a long transcript (testdata/bench.md twenty times, about
// 100 KB) with each parser; cpu-ns/op is the process's CPU time, which a loaded machine
// does not inflate.
func BenchmarkRenderParsers(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "bench.md"))
	if err != nil {
		b.Fatal(err)
	}
	long := strings.Repeat(string(src)+"\n\n", 20)
	for _, p := range []struct {
		name string
		p    func() parser.Parser
	}{{"gfm.go", mdParser}, {"goldmark", goldmarkGFM}} {
		b.Run(p.name, func(b *testing.B) {
			r := New(100, Dark)
			b.SetBytes(int64(len(long)))
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				r.render(p.p(), long)
			}
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

func cpuTime(b *testing.B) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
