package cmdline

import (
	"reflect"
	"testing"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// TestEveryWrapperHasItsPeel: every name of an entry with a wrapper role is a wrapper of the
// walk, with the peel its role says: registered code for "code" (and only then), the role's
// options for "operand", none for "guess"; and every registered peel is the code of a name
// whose entry says "code".
func TestEveryWrapperHasItsPeel(t *testing.T) {
	counts := map[string]int{}
	for _, e := range knowledge.Builtin().Programs() {
		r, ok := e.Wrapper()
		if !ok {
			continue
		}
		for _, n := range e.Names {
			counts[r.Start]++
			spec, ok := Wrapper(n)
			if !ok {
				t.Errorf("%s: %s has a wrapper role the walk does not read", e.Pos, n)
				continue
			}
			if spec.Safe != r.Safe {
				t.Errorf("%s: %s: Safe = %v, the role says %v", e.Pos, n, spec.Safe, r.Safe)
			}
			f, registered := RegisteredPeel(n)
			switch r.Start {
			case "code":
				if !registered {
					t.Errorf("%s: role wrapper code of %s, but no peel is registered for it (cmdline/kb_NAME.go)", e.Pos, n)
				} else if reflect.ValueOf(spec.Peel).Pointer() != reflect.ValueOf(f).Pointer() {
					t.Errorf("%s: %s's peel is not the one registered", e.Pos, n)
				}
			case "operand":
				if registered || spec.Peel == nil {
					t.Errorf("%s: role wrapper operand of %s: registered %v, peel %v; the role's options are its peel", e.Pos, n, registered, spec.Peel != nil)
				}
			case "guess":
				if registered || spec.Peel != nil {
					t.Errorf("%s: role wrapper guess of %s has a peel: say code instead", e.Pos, n)
				}
			}
		}
	}
	for _, n := range RegisteredPeels() {
		e, ok := knowledge.Facts(n)
		if !ok {
			t.Errorf("a peel is registered for %s, which has no entry", n)
			continue
		}
		if r, wrapper := e.Wrapper(); !wrapper || r.Start != "code" {
			t.Errorf("a peel is registered for %s, whose entry does not say role wrapper code", n)
		}
	}
	if counts["code"] == 0 || counts["operand"] == 0 || counts["guess"] == 0 {
		t.Fatalf("wrapper names by start: %v; the roles or the registry were not read", counts)
	}
	t.Logf("wrapper names by where their command starts: %v", counts)
}

// TestOperandPeel: a wrapper role's options are read with the arity of the entry's options,
// and an option it does not list leaves the start unknown.
func TestOperandPeel(t *testing.T) {
	progs, err := knowledge.Parse("t.kb", []byte("program w\nflags nooptions\nrole wrapper operand -a -u --user --keep\nopt -a\nopt -u= --user=\nopt --keep\nopt -x\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := progs[0].Wrapper()
	peel := optionsPeel(progs[0], r.Options)
	for _, tc := range []struct {
		args  []string
		inner int
		ok    bool
	}{
		{[]string{"rm"}, 0, true},
		{[]string{"-a", "rm"}, 1, true},
		{[]string{"-u", "root", "rm"}, 2, true},
		{[]string{"-uroot", "rm"}, 1, true},
		{[]string{"-au", "root", "rm"}, 2, true},
		{[]string{"--user", "root", "rm"}, 2, true},
		{[]string{"--user=root", "--keep", "--", "rm"}, 3, true},
		{[]string{"--keep=1", "rm"}, 0, false},
		{[]string{"-x", "rm"}, 0, false}, // an option of the entry the role does not list
		{[]string{"--us", "root", "rm"}, 0, false},
	} {
		var words []Word
		for _, s := range tc.args {
			words = append(words, Word{Src: s, Value: s, Known: true})
		}
		inner, _, _, ok := peel(words)
		if ok != tc.ok || (ok && inner != tc.inner) {
			t.Errorf("peel %v = %d, %v; want %d, %v", tc.args, inner, ok, tc.inner, tc.ok)
		}
	}
}
