package bashrules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// TestProgramCodeBesideItsEntry: a program's code is registered from kb_NAME.go, the file
// beside programs/NAME.kb where its entry is, and from nowhere else, so that a reader finds a
// program's facts in one entry and its code in one file. Every registered name has an entry.
func TestProgramCodeBesideItsEntry(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "programcode.go" {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn, ok := call.Fun.(*ast.Ident)
			if !ok || !strings.HasPrefix(fn.Name, "register") || fn.Name == "register" || len(call.Args) == 0 {
				return true
			}
			at := fset.Position(call.Pos())
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: %s names its program with a literal, so that this test can place it", at, fn.Name)
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			e, ok := knowledge.Facts(name)
			if !ok {
				t.Errorf("%s: %s registers code for %q, which has no knowledge-base entry", at, fn.Name, name)
				return true
			}
			file, _, _ := strings.Cut(e.Pos, ":")
			want := "kb_" + strings.TrimSuffix(filepath.Base(file), ".kb") + ".go"
			if f != want {
				t.Errorf("%s: %s's entry is in %s, so its code is registered in %s", at, name, file, want)
			}
			return true
		})
	}
}
