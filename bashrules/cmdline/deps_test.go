package cmdline

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the walk below the checker: the standard library, the shell parser (and
// its brace expansion) and the knowledge base of programs. No rule, engine or path check
// reaches it; what only the checker knows comes in through Hooks.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"mvdan.cc/sh/v3/syntax":                         true,
		"mvdan.cc/sh/v3/expand":                         true,
		"github.com/reinsdev/reins/bashrules/knowledge": true,
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			if strings.Contains(first, ".") && !allowed[p] {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}

// TestLazyPatternsCompile compiles every pattern built on first use, so that a bad one fails
// here rather than in the first walk that needs it.
func TestLazyPatternsCompile(t *testing.T) {
	if len(lazyPatterns) < 8 {
		t.Fatalf("%d lazy patterns, want at least 8", len(lazyPatterns))
	}
	for _, re := range lazyPatterns {
		if re() == nil {
			t.Fatal("nil pattern")
		}
	}
}
