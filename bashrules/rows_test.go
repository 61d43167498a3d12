package bashrules

import "testing"

// Rule shorthands the command table's rows share.

const (
	denyRm    = "deny:Bash(rm:*)"
	denyRmRf  = "deny:Bash(rm -rf:*)"
	askRmRf   = "ask:Bash(rm -rf:*)"
	denyForce = "deny:Bash(git push --force:*)"
	askForce  = "ask:Bash(git push --force:*)"
	notCover  = "bypass mode do not cover it"
)

// TestEffectNameMeaningRowsKept keeps the rows of the classes "Effects, names and meaning"
// (effects, names, meaning, options, everyday) from shrinking.
func TestEffectNameMeaningRowsKept(t *testing.T) {
	n := len(effectCases) + len(nameCases) + len(meaningCases) + len(optionCases) + len(everydayCases)
	if n < 300 {
		t.Fatalf("the effect, name and meaning rows number %d; it must hold at least 300", n)
	}
	t.Logf("%d rows", n)
}
