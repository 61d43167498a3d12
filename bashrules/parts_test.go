package bashrules

import (
	"context"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestCheckerPartsPointIntoTheirChecker: the checker's parts reach each other through pointers
// into the checker itself, set again by newChecker for every decision. A pooled checker whose
// parts still pointed at a cleared or another checker's recorder, verdicts or memo would lose
// trace steps and effects, or read another decision's normal forms.
func TestCheckerPartsPointIntoTheirChecker(t *testing.T) {
	defer func() { poolCheckers = true }()
	fx := newFixture(t)
	pc := fx.context(t, permission.ModeDefault, "deny:Bash(rm:*)")
	for _, pooled := range []bool{true, false} {
		poolCheckers = pooled
		for i := range 3 { // the second and third may be the first, reused
			k := newChecker(context.Background(), pc, "ls && rm x")
			k.run()
			switch {
			case k.verdicts.rec != &k.rec:
				t.Errorf("pooled=%v, decision %d: verdicts record elsewhere", pooled, i)
			case k.rules.memo != &k.memo || k.rules.verdicts != &k.verdicts || k.rules.idx != k.idx:
				t.Errorf("pooled=%v, decision %d: ruleMatch reads another memo, verdicts or index", pooled, i)
			case k.paths.rec != &k.rec || k.paths.verdicts != &k.verdicts || k.paths.pc != pc:
				t.Errorf("pooled=%v, decision %d: pathChecks record, answer or check elsewhere", pooled, i)
			case k.paths.cd != nil && k.paths.cd != &k.paths.cdBuf:
				t.Errorf("pooled=%v, decision %d: the cd state is not the checker's", pooled, i)
			}
			if pooled {
				checkers.Put(k)
			}
		}
	}
}
