package bashrules

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the package pure: the standard library, the shell parser (and its brace
// expansion), the permission engine, the knowledge base of programs, the command line's
// reading (cmdline), and hostform (a standard-library leaf: hosts in the web tool's form).
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"mvdan.cc/sh/v3/syntax":                         true,
		"mvdan.cc/sh/v3/expand":                         true,
		"github.com/reinsdev/reins/permission":          true,
		"github.com/reinsdev/reins/bashrules/knowledge": true,
		"github.com/reinsdev/reins/bashrules/cmdline":   true,
		"github.com/reinsdev/reins/hostform":            true,
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
			if !strings.Contains(first, ".") {
				continue // standard library
			}
			if !allowed[p] {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
