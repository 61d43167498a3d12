package bashrules

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
)

// interpreterNames are the names of every interpreter entry whose code the analysis does not
// read itself (awk's it does), sorted.
func interpreterNames() []string {
	var out []string
	for _, e := range knowledge.Builtin().Programs() {
		if _, ok := e.Role(knowledge.RoleInterpreter); !ok {
			continue
		}
		for _, n := range e.Names {
			if !seesCode(n) {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// codeForms are the code-carrying forms of an interpreter's command: its code options (from
// its entry), its standard input (bare, "-", a pipe, a redirection, a here-string), a device
// or pipe as its program, a process substitution, a module that runs its arguments, a
// program file, and variables that make it load other code.
func codeForms(name string) []string {
	spec, _ := interpreterFor(name)
	forms := []string{name, name + " -", "echo x | " + name, name + " < notes.txt", name + " <<< 'x'",
		name + " /dev/stdin", name + " /dev/fd/3 3< notes.txt", name + " /proc/self/fd/0", name + " <(echo x)",
		name + " prog.x", name + " -- prog.x", "LD_PRELOAD=./x.so " + name + " prog.x", "PYTHONPATH=./p " + name + " prog.x",
		"NODE_OPTIONS=-r " + name + " prog.x", "echo x | xargs " + name}
	for i := 0; i < len(spec.short); i++ {
		forms = append(forms, fmt.Sprintf("%s -%c 'x' prog.x", name, spec.short[i]))
	}
	for _, l := range spec.long {
		forms = append(forms, name+" "+l+"=x prog.x", name+" "+l+" x")
	}
	for _, s := range spec.sub {
		forms = append(forms, name+" "+s+" x")
	}
	mods := make([]string, 0, len(spec.modules))
	for m := range spec.modules {
		mods = append(mods, m)
	}
	slices.Sort(mods)
	for _, m := range mods {
		forms = append(forms, name+" -m "+m+" x", name+" -m"+m)
	}
	return forms
}

// TestPropertyInterpreterCodeAsksUnderDeny (issue 39): for any interpreter entry and any form
// that carries code the analysis cannot see, a Bash deny or ask rule makes the call ask in
// every mode — bypass included — under no allow rule, a tool-wide allow, or a rule for the
// interpreter alone.
func TestPropertyInterpreterCodeAsksUnderDeny(tt *testing.T) {
	f := newFixture(tt)
	names := interpreterNames()
	if len(names) < 40 {
		tt.Fatalf("%d interpreter names; the knowledge base has more", len(names))
	}
	modes := []permission.Mode{permission.ModeDefault, permission.ModeBypass, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeDontAsk}
	rapid.Check(tt, func(t *rapid.T) {
		name := rapid.SampledFrom(names).Draw(t, "interpreter")
		form := rapid.SampledFrom(codeForms(name)).Draw(t, "form")
		if w := rapid.SampledFrom([]string{"", "timeout 5 ", "nice ", "env A=1 "}).Draw(t, "wrapper"); w != "" && !strings.Contains(form, "|") && !strings.Contains(form, "=") {
			form = w + form
		}
		deny := rapid.SampledFrom([]string{denyRm, askForce, "deny:Bash(curl:*)"}).Draw(t, "deny")
		rules := []string{deny}
		if a := rapid.SampledFrom([]string{"", "allow:Bash", "allow:Bash(" + name + ":*)", "allow:Bash(" + name + " *)", "allow:Bash(*)"}).Draw(t, "allow"); a != "" {
			rules = append(rules, a)
		}
		mode := rapid.SampledFrom(modes).Draw(t, "mode")
		pc := f.context(tt, mode, rules...)
		var e permission.Engine
		d, err := e.Decide(tt.Context(), pc, bashTool{}, map[string]any{"command": form})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior == permission.Allow {
			bd, tr := check(tt, pc, form)
			t.Fatalf("%q with %v in %s: allowed\n%s", form, rules, mode, explain(bd, tr))
		}
	})
}

// TestEveryInterpreterCodeFormAsks is the property above for every interpreter and every
// form, in the modes and rules where an allow is likeliest: bypass mode with a tool-wide allow.
func TestEveryInterpreterCodeFormAsks(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeBypass, denyRm, "allow:Bash")
	var e permission.Engine
	n := 0
	for _, name := range interpreterNames() {
		for _, form := range codeForms(name) {
			n++
			d, err := e.Decide(t.Context(), pc, bashTool{}, map[string]any{"command": form})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior == permission.Allow {
				bd, tr := check(t, pc, form)
				t.Errorf("%q: allowed in bypass mode under %s\n%s", form, denyRm, explain(bd, tr))
			}
		}
	}
	t.Logf("%d interpreter forms, each asks", n)
}
