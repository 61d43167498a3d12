package pathrule

import (
	"fmt"
	"strings"
	"testing"
)

// benchPatterns returns n rules of the shapes seen in permission settings:
// names, extensions, anchored trees, "**" searches, classes.
func benchPatterns(tb testing.TB, n int) []*Pattern {
	templates := []string{
		"*.env%d",
		".env%d*",
		"secrets%d/**",
		"/src/gen%d/**",
		"build%d/",
		"**/node_modules%d/**",
		"*.log%d",
		"/docs/v%d/*.md",
		"vendor%d",
		"/internal/pkg%d/file?.go",
		"a/**/b%d",
		"[abc]%d.txt",
		"**/*.key%d",
		"**/.git%d/**",
		"Config%d.JSON",
		"/src/internal/permission/engine%d/",
		"src/**/testdata%d/*.golden",
		"Ünïcode%d/**",
	}
	ps := make([]*Pattern, 0, n)
	for i := 0; len(ps) < n; i++ {
		p, err := Compile(fmt.Sprintf(templates[i%len(templates)], i))
		if err != nil {
			tb.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// BenchmarkMatch checks one path against 1,000 rules, as the permission
// engine does for a Read or Edit call; ns/op is for all 1,000.
func BenchmarkMatch(b *testing.B) {
	ps := benchPatterns(b, 1000)
	for _, bc := range []struct{ name, rel string }{
		{"typical", "src/internal/permission/engine/rules.go"},
		{"deep", strings.Repeat("dir/", 12) + "file.txt"},
		{"unicode", "Dokumente/Übersicht/Ärger.md"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			matched := 0
			for b.Loop() {
				for _, p := range ps {
					if p.Match(bc.rel, false) {
						matched++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ps)), "ns/pattern")
			_ = matched
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("/src/**/testdata/[a-z]*_test.go"); err != nil {
			b.Fatal(err)
		}
	}
}
