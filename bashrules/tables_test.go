package bashrules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// commandTables are the Go maps keyed by program (or subcommand) name that remain beside the
// knowledge base. Each is a fact about programs that belongs in their entries, as a role or a
// value type (issue 39); until it moves there it is listed here, and the list only shrinks:
// an entry that matches nothing fails too.
var commandTables = map[string]string{}

// TestNoNewCommandKeyedTables: a fact about a program lives in its knowledge-base entry. A Go
// map literal of bashrules (or its cmdline package) with three or more keys naming programs
// the knowledge base has is a second place for such facts, and fails here unless it is one of
// commandTables, the ones still to move.
// commandSwitches are the switches on program names that remain (file and function), each
// program code that reads values or operands in its own way; a new one is a test failure.
var commandSwitches = []string{
	"damagefeed.go xargsFeed",         // which producers' output xargs turns into operands
	"effects.go execOption",           // options and operands read by value (tmux send-keys, tar's first word)
	"effects.go nameChanger",          // alias, hash, enable, shopt: builtins that rebind names
	"shellmeaning.go shellMeaningWhy", // set, shopt and the like: shell options that change meaning
	"egress.go commandEgress",         // tar's remote archive, curl's and wget's URLs, git's and go's subcommands
	"cmdline/wrappers.go unwrap",      // what eval, trap, find, xargs and git's aliases run, each read its own way
}

func TestNoNewCommandKeyedTables(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	nested, err := filepath.Glob("cmdline/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var found, switches []string
	fset := token.NewFileSet()
	for _, f := range append(files, nested...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range decls(af) {
			where := filepath.ToSlash(f) + " " + d.name
			ast.Inspect(d.node, func(n ast.Node) bool {
				if cl, ok := n.(*ast.CompositeLit); ok && programKeys(cl) >= 3 && !slices.Contains(found, where) {
					found = append(found, where)
				}
				if sw, ok := n.(*ast.SwitchStmt); ok && programCases(sw) >= 3 && !slices.Contains(switches, where) {
					switches = append(switches, where)
				}
				return true
			})
		}
	}
	for _, w := range found {
		if _, ok := commandTables[w]; !ok {
			t.Errorf("%s: a map keyed by program names; put the fact in the programs' entries (bashrules/knowledge/programs) instead", w)
		}
	}
	for w := range commandTables {
		if !slices.Contains(found, w) {
			t.Errorf("commandTables lists %s, which is no longer a table keyed by program names: take it off the list", w)
		}
	}
	for _, w := range switches {
		if !slices.Contains(commandSwitches, w) {
			t.Errorf("%s: a switch on program names; put the fact in the programs' entries (a role, an option's type) instead", w)
		}
	}
	for _, w := range commandSwitches {
		if !slices.Contains(switches, w) {
			t.Errorf("commandSwitches lists %s, which no longer switches on program names: take it off the list", w)
		}
	}
}

// programCases counts the program names among a switch's case values (switch name { case
// "git", "hg": }) and the comparisons with them in its cases (switch { case name == "git": }).
func programCases(sw *ast.SwitchStmt) int {
	n := 0
	for _, st := range sw.Body.List {
		cc, ok := st.(*ast.CaseClause)
		if !ok {
			continue
		}
		for _, e := range cc.List {
			if isProgramName(e) {
				n++
				continue
			}
			ast.Inspect(e, func(x ast.Node) bool {
				if be, ok := x.(*ast.BinaryExpr); ok && be.Op == token.EQL && (isProgramName(be.X) || isProgramName(be.Y)) {
					n++
				}
				return true
			})
		}
	}
	return n
}

// isProgramName reports a string literal naming a program the knowledge base has an entry for.
func isProgramName(e ast.Expr) bool {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(bl.Value)
	if err != nil {
		return false
	}
	_, ok = knowledge.Facts(s)
	return ok
}

type decl struct {
	name string
	node ast.Node
}

// decls are a file's functions and its variables, each with its name (a var block's
// specs one by one).
func decls(f *ast.File) []decl {
	var out []decl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out = append(out, decl{d.Name.Name, d})
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Names) > 0 {
					out = append(out, decl{vs.Names[0].Name, vs})
				}
			}
		}
	}
	return out
}

// programKeys counts the keys of a map literal that are string literals naming a program the
// knowledge base has an entry for.
func programKeys(cl *ast.CompositeLit) int {
	if _, ok := cl.Type.(*ast.MapType); !ok {
		return 0
	}
	n := 0
	for _, e := range cl.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if isProgramName(kv.Key) {
			n++
		}
	}
	return n
}
