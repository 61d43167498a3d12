package bashrules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// TestProgramCodeBesideItsEntry: a program's code is registered from kb_NAME.go, the file
// beside programs/NAME.kb where its entry is, and from nowhere else, so that a reader finds a
// program's facts in one entry and its code in one file. Every registered name has an entry.
// The walk's code (cmdline's peels of wrappers) is registered likewise from cmdline/kb_NAME.go.
func TestProgramCodeBesideItsEntry(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	nested, err := filepath.Glob("cmdline/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	calls := 0
	for _, f := range append(files, nested...) {
		f = filepath.ToSlash(f)
		if strings.HasSuffix(f, "_test.go") || f == "programcode.go" || f == "cmdline/peels.go" {
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
			calls++
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
			if dir := path.Dir(f); dir != "." {
				want = dir + "/" + want
			}
			if f != want {
				t.Errorf("%s: %s's entry is in %s, so its code is registered in %s", at, name, file, want)
			}
			return true
		})
	}
	if calls == 0 {
		t.Fatal("no registration found: the files were not read")
	}
}

// hasCode reports whether code is registered for one of an entry's names.
func hasCode(e *knowledge.Command) bool {
	for _, n := range e.Names {
		if registered(n) != nil {
			return true
		}
	}
	return false
}

// TestPathCodeIsReachable: every paths role and every registered path code is what the path
// checks get for its name (pathFuncOf), and no name has both; a role's reader is built from
// its entry's options (a partial entry or one with subcommands panics here, not in a call).
func TestPathCodeIsReachable(t *testing.T) {
	roles := 0
	for _, e := range knowledge.Builtin().Programs() {
		w, ok := e.Role(knowledge.RolePaths)
		if !ok {
			continue
		}
		roles++
		for _, n := range e.Names {
			if registered(n) != nil && registered(n).paths != nil {
				t.Errorf("%s: %s has a paths role and registered path code; say it once", e.Pos, n)
			}
			f, ok := pathFuncOf(n)
			if !ok {
				t.Errorf("%s: role paths %v of %s reaches no path check", e.Pos, w, n)
				continue
			}
			if w[0] == "none" {
				if got := f([]Word{{Src: "f", Value: "f", Known: true}}); len(got.uses)+len(got.issues) != 0 {
					t.Errorf("%s: role paths none of %s gives %+v", e.Pos, n, got)
				}
				continue
			}
			want := map[string]access{"read": accRead, "write": accWrite, "remove": accRemove}[w[0]]
			got := f([]Word{{Src: "f", Value: "f", Known: true}})
			if len(got.uses) != 1 || got.uses[0].acc != want {
				t.Errorf("%s: role paths %s of %s: f gives %+v, want one %s", e.Pos, w[0], n, got, want)
			}
		}
	}
	codes := 0
	codeMu.Lock()
	names := make([]string, 0, len(programCodes))
	for n, c := range programCodes {
		if c.paths != nil {
			names = append(names, n)
		}
	}
	codeMu.Unlock()
	for _, n := range names {
		codes++
		f, ok := pathFuncOf(n)
		if !ok || reflect.ValueOf(f).Pointer() != reflect.ValueOf(registered(n).paths).Pointer() {
			t.Errorf("the path code registered for %s is not what pathFuncOf(%q) gives", n, n)
		}
	}
	if roles == 0 || codes == 0 {
		t.Fatalf("%d paths roles and %d registrations: the registry or the roles were not read", roles, codes)
	}
	t.Logf("%d entries with a paths role, %d names with registered path code", roles, codes)
}

// TestPathsRoleTreeOptions: a paths role reads its operands past the entry's value options,
// whole trees below them when one of the role's tree options is given (as grep -r would).
func TestPathsRoleTreeOptions(t *testing.T) {
	progs, err := knowledge.Parse("t.kb", []byte("program t\nflags abbrev\nrole paths read -r --recursive\nopt -r --recursive\nopt --rebase\nopt -n= --lines=\n"))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := progs[0].Role(knowledge.RolePaths)
	f := roleFunc(progs[0], w)
	words := func(s ...string) []Word {
		var out []Word
		for _, v := range s {
			out = append(out, Word{Src: v, Value: v, Known: true})
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "5", "a"}, "a:read"},
		{[]string{"--lines=5", "-", "a"}, "a:read"},
		{[]string{"-r", "-n5", "d"}, "d:read below"},
		{[]string{"--rec", "d", "e"}, "d:read below e:read below"},
		{[]string{"--re", "d"}, "d:read"},     // --re is --recursive or --rebase
		{[]string{"-n", "-r", "d"}, "d:read"}, // -r is -n's value
	} {
		var got []string
		for _, u := range f(words(tc.args...)).uses {
			got = append(got, u.w.Value+":"+u.acc.String())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("t %v = %v, want %s", tc.args, got, tc.want)
		}
	}
}

// TestReadOnlyEntriesWithoutCode: an entry flagged readonly with no registered code is judged
// by its options alone. An option of it that writes, runs, connects, changes the system or
// reads a list of files keeps a call that gives it out of the set
// (TestReadOnlyRefusesChangingOptions); what else must hold is that xargs never runs such an
// entry on the names a producer prints, where one of those options could arrive spelled as
// a name (a file called --diag=x), which no check of the call's own words sees.
func TestReadOnlyEntriesWithoutCode(t *testing.T) {
	n, harmful := 0, 0
	for _, e := range knowledge.Builtin().Programs() {
		if !e.ReadOnly || hasCode(e) {
			continue
		}
		n++
		if harmlessOptions(e) {
			continue
		}
		harmful++
		for _, name := range e.Names {
			if xargsChildren()[name] {
				t.Errorf("%s: xargs may run %s on names it found, yet %s has options that are not harmless", e.Pos, name, name)
			}
		}
	}
	if n < 20 || harmful == 0 {
		t.Fatalf("%d readonly entries without code, %d of them with options that are not harmless: the flag or the entries were not read", n, harmful)
	}
}

// TestReadOnlyRefusesChangingOptions: for every name of the read-only set, each option its
// entry types as writing, running, connecting, changing the system or reading a file list (or
// whose value is code or a command line) keeps the command out of the set, whatever code the
// name has registered. Reading a file or naming a host is what the path and egress checks see.
func TestReadOnlyRefusesChangingOptions(t *testing.T) {
	checked := 0
	for name := range readOnlyCommands() {
		e, ok := knowledge.Lookup(name)
		if !ok {
			continue
		}
		ro, _ := readOnlyFor(name)
		for _, c := range append([]*knowledge.Command{e}, e.Subcommands()...) {
			for _, o := range c.Options {
				code := o.Code && !seesCode(name) // awk -e: the analysis reads that program itself
				if o.Effects&^(knowledge.Read|knowledge.Host) == 0 && !code && !o.Script {
					continue
				}
				var args []Word
				if c != e {
					args = append(args, Word{Src: c.Names[0], Value: c.Names[0], Known: true})
				}
				sp := o.Spellings[0]
				args = append(args, Word{Src: sp, Value: sp, Known: true})
				for range map[knowledge.Arity]int{knowledge.Required: 1, knowledge.Two: 2}[o.ArityOf(sp)] {
					args = append(args, Word{Src: "v", Value: "v", Known: true})
				}
				checked++
				if ro(args) == "" {
					t.Errorf("%s: %s %s is %s (code %v, script %v), yet %s is read-only", o.Pos, name, joinValues(args, false), o.Effects, o.Code, o.Script, name)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("%d options checked: the read-only set or its entries were not read", checked)
	}
}

// TestReadOnlyCodeIsReachable: read-only code is registered only for a name of an entry
// flagged readonly, and is what the read-only set has for that name.
func TestReadOnlyCodeIsReachable(t *testing.T) {
	codeMu.Lock()
	var names []string
	for n, c := range programCodes {
		if c.readOnly != nil {
			names = append(names, n)
		}
	}
	codeMu.Unlock()
	for _, n := range names {
		e, _ := knowledge.Facts(n)
		if e == nil || !e.ReadOnly {
			t.Errorf("read-only code is registered for %s, whose entry does not say flags readonly", n)
		}
		if _, ok := readOnlyCommands()[n]; !ok {
			t.Errorf("read-only code is registered for %s, which is not in the read-only set", n)
		}
	}
	if len(names) == 0 {
		t.Fatal("no read-only code is registered")
	}
}

// TestReadOnlyNames: a readonly entry joins the set under every name, unless read-only code is
// registered for some, when exactly those join (awk's program check is awk's, not gawk's); and
// an interpreter's code is seen by the analysis only where its entry says role seescode.
func TestReadOnlyNames(t *testing.T) {
	for name, want := range map[string]bool{"awk": true, "gawk": false, "mawk": false, "node": true, "nodejs": false,
		"fd": true, "fdfind": true, "test": true, "[": true, "grep": true, "rgrep": true, "pyright": true, "python3": false} {
		if _, got := readOnlyCommands()[name]; got != want {
			t.Errorf("%s in the read-only set = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"awk": true, "gawk": true, "node": false, "python3": false} {
		if got := seesCode(name); got != want {
			t.Errorf("seesCode(%s) = %v, want %v", name, got, want)
		}
	}
}
