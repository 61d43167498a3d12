package bashrules

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// linearMatch is the plain definition the index must agree with: the first rule in load order
// that matches any candidate.
func linearMatch(rules []*permission.Rule, cands []string, loose bool) *permission.Rule {
	for _, r := range rules {
		if !loose && Form(r.Value.Content) != FormExact {
			continue
		}
		for _, c := range cands {
			if MatchRule(r.Value.Content, c) {
				return r
			}
		}
	}
	return nil
}

func TestRuleIndexAgreesWithLinearScan(t *testing.T) {
	words := []string{"git", "git status", "git push", "npm", "npm run test", "xargs rm", "rm -rf x", "ls", " ls", "go vet ./...", "*", "\\*",
		"git push -f origin", "git pushx", "git push", "xargs git push x", "xargs rm -rf x", "npm run", "npm  run test", "git status  x", "git  push"}
	contents := []string{"git:*", "git push:*", "git *", "git", "npm run test:*", "npm run *", "*force*", "rm:*", "ls", " ls", ":*",
		"git*", "\\*", "go vet *", "* status", "xargs rm:*", "git status", "npm*test",
		"git push -f *", "git push -f:*", "rm -rf:*", "xargs rm -rf:*", "npm run test *", "git push*", "git push \\*", "git \\* x:*", "npm run:*", " git push:*", "git push :*", "git  push:*", "git push x*", "git status  *"}
	rapid.Check(t, func(t *rapid.T) {
		var rules []*permission.Rule
		for _, c := range rapid.SliceOfN(rapid.SampledFrom(contents), 0, 12).Draw(t, "rules") {
			rules = append(rules, &permission.Rule{Value: permission.RuleValue{Tool: "Bash", Content: c}, Behavior: permission.Deny})
		}
		cands := rapid.SliceOfN(rapid.SampledFrom(words), 1, 3).Draw(t, "cands")
		loose := rapid.Bool().Draw(t, "loose")
		want := linearMatch(rules, cands, loose)
		got := newRuleSet(rules).match(cands, loose)
		if got != want {
			t.Fatalf("index found %v, linear scan %v", got, want)
		}
	})
}
