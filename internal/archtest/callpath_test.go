package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// authorizing are the engine's methods that settle a call (ask included). Only the one call
// pipeline may use them: a front end that called them itself would be a second path of a call,
// with its own re-check of substituted input (docs/architecture.md, "How a tool call flows").
var authorizing = map[string]bool{"Authorize": true, "AuthorizeCall": true, "AuthorizeWithHook": true, "RuleBased": true}

// callPath are the packages allowed to call them: the engine itself and the pipeline.
var callPath = []string{"permission", "toolcall"}

// notACall are files that use RuleBased for a read the program makes itself, which is no tool
// call: nothing runs and no one is asked, and the file meets only the steps nothing bypasses.
var notACall = map[string]string{
	"internal/app/memory.go": "a memory file's @ import meets the Read tool's rules (memory.Access)",
}

func TestOneCallPath(t *testing.T) {
	root := "../.."
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, allowed := range callPath {
			if pkg == allowed {
				return nil
			}
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && authorizing[sel.Sel.Name] {
				if _, ok := notACall[filepath.ToSlash(rel)]; ok && sel.Sel.Name == "RuleBased" {
					return true
				}
				t.Errorf("%s: %s calls %s: run calls through toolcall.Pipeline instead", fset.Position(call.Pos()), pkg, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
