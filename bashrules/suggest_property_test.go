package bashrules

import (
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// suggestCommands are everyday commands, interpreters' among them, and the commands that a
// rule suggested for one must not let through: other code, other modules and scripts,
// compounds, redirections out of the project, expansions, wrappers.
var (
	suggestCommands = []string{
		"python3 -m pytest", "python3 -m pytest -x tests/", "python3 -m unittest", "python3 -m unittest discover",
		"python3 -m pip install requests", "python -m http.server 8000", "python3 x.py", "python3 x.py --fast",
		"python3 -c 'print(1)'", "node test.js", "node test.js --watch", "node -e 'console.log(1)'", "ruby script.rb",
		"perl -e 'print 1'", "npm test", "npm run build", "go test ./...", "cargo build --release", "make", "make test",
		"touch new.txt", "git commit -m x", "uv run pytest", "deno run main.ts",
	}
	suggestTails = []string{"", " -k fast", " tests/", " > /tmp/out.txt", " && rm -rf ~", "; curl x | sh", " $(id)", " > .git/hooks/pre-commit"}
	suggestHeads = []string{"", "timeout 60 ", "env X=1 ", "sudo "}
)

// TestPropertySuggestionIsNarrowest: for any command the analysis allows under some rule (its
// exact rule), a "don't ask again" rule is suggested; that rule allows the command; and every
// other command it lets through is one the analysis asked about only because no rule allowed
// it, of the same program, module or script as the rule names (never other inline code, another
// module, a compound, a write the path checks ask about, an expansion).
func TestPropertySuggestionIsNarrowest(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	plain := f.context(t, permission.ModeDefault)
	suggested := 0
	rapid.Check(t, func(rt *rapid.T) {
		cmd := rapid.SampledFrom(suggestCommands).Draw(rt, "cmd")
		d := asked(Check(ctx, plain, cmd))
		exact := permission.RuleValue{Tool: "Bash", Content: cmd}.String()
		if d.Behavior != permission.Ask || Check(ctx, f.context(t, permission.ModeDefault, "allow:"+exact), cmd).Behavior != permission.Allow {
			return // not a command some rule allows
		}
		var rules []permission.RuleValue
		for _, u := range d.Suggestions {
			rules = append(rules, u.Rules...)
		}
		if len(rules) != 1 {
			rt.Fatalf("%q: suggested %v, want one rule", cmd, rules)
		}
		suggested++
		rule := rules[0]
		with := f.context(t, permission.ModeDefault, "allow:"+rule.String())
		if got := Check(ctx, with, cmd); got.Behavior != permission.Allow {
			rt.Fatalf("%q with its suggested rule %s = %s", cmd, rule, got.Behavior)
		}
		// Every other command, under a wrapper and with a tail drawn for it.
		for _, o := range suggestCommands {
			other := rapid.SampledFrom(suggestHeads).Draw(rt, "head") + o + rapid.SampledFrom(suggestTails).Draw(rt, "tail")
			if Check(ctx, with, other).Behavior != permission.Allow {
				continue
			}
			before := asked(Check(ctx, plain, other))
			if before.Behavior == permission.Allow {
				continue
			}
			if why := permission.AgainReason(before); before.Behavior != permission.Ask || why != "" {
				rt.Fatalf("the rule %s suggested for %q allows %q, which the analysis asks about: %s", rule, cmd, other, why)
			}
			prefix, wild := strings.CutSuffix(rule.Content, ":*")
			if !wild && !strings.Contains(other, rule.Content) || wild && !strings.Contains(other+" ", prefix+" ") {
				rt.Fatalf("the rule %s suggested for %q allows %q, another program, module or script", rule, cmd, other)
			}
			if isInterpreterLine(o) && (strings.Contains(o, " -c ") || strings.Contains(o, " -e ")) && o != cmd {
				rt.Fatalf("the rule %s suggested for %q allows other inline code: %q", rule, cmd, other)
			}
			if isInterpreterLine(o) && strings.Fields(o)[1] != strings.Fields(cmd)[1] {
				rt.Fatalf("the rule %s suggested for %q allows another script or module: %q", rule, cmd, other)
			}
		}
	})
	if suggested == 0 {
		t.Error("no command got a suggestion: the property checked nothing")
	}
}

// asked is d as the pipeline makes it: passthrough (nothing allowed it) asks.
func asked(d permission.Decision) permission.Decision {
	if d.Behavior == permission.Passthrough {
		d.Behavior = permission.Ask
	}
	return d
}

func isInterpreterLine(cmd string) bool {
	name, _, _ := strings.Cut(cmd, " ")
	return isInterpreter(name)
}
