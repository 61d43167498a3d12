package archtest

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// benchCopies are the files of bench/libcmp that copy code of ours to measure it beside a
// library: that module is its own so the libraries are not dependencies of reins, and so it
// cannot import the unexported code it measures. Each copy is checked against its original
// here, so a measurement never runs code reins no longer has.
var benchCopies = []struct{ copy, original string }{
	{"bench/libcmp/ignorecopy.go", "tools/search/ignore.go"},
	{"bench/libcmp/imagecopy.go", "tools/files/image.go"},
}

// TestBenchCopiesInStep: every function, type, constant and variable a copy declares is
// declared in its original with the same source (comments aside).
func TestBenchCopiesInStep(t *testing.T) {
	root := "../.."
	for _, c := range benchCopies {
		copied := declarations(t, filepath.Join(root, c.copy))
		original := declarations(t, filepath.Join(root, c.original))
		if len(copied) == 0 {
			t.Errorf("%s declares nothing", c.copy)
		}
		for name, src := range copied {
			switch orig, ok := original[name]; {
			case !ok:
				t.Errorf("%s: %s is not in %s any more", c.copy, name, c.original)
			case orig != src:
				t.Errorf("%s: %s differs from %s's; copy it again", c.copy, name, c.original)
			}
		}
	}
}

// declarations maps each top-level name of a Go file to its declaration's source as gofmt
// prints it without comments.
func declarations(t *testing.T, path string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0) // no comments: only the code must agree
	if err != nil {
		t.Fatal(err)
	}
	print := func(n ast.Node) string {
		var b bytes.Buffer
		if err := format.Node(&b, fset, n); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return b.String()
	}
	decls := map[string]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				name = print(d.Recv.List[0].Type) + "." + name
			}
			decls[name] = print(d)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					decls[s.Name.Name] = print(s)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						decls[n.Name] = print(s)
					}
				}
			}
		}
	}
	return decls
}
