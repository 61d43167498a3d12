package permission

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestSuspiciousMatchers holds the written-out matchers to the regexps they replace.
func TestSuspiciousMatchers(t *testing.T) {
	shortName := regexp.MustCompile(`~\d`)
	deviceSuffix := regexp.MustCompile(`(?i)\.(con|prn|aux|nul|com\d|lpt\d)$`)
	check := func(t interface{ Fatalf(string, ...any) }, p string) {
		if got, want := hasShortName(p), shortName.MatchString(p); got != want {
			t.Fatalf("hasShortName(%q) = %v, regexp %v", p, got, want)
		}
		if got, want := hasDeviceSuffix(p), deviceSuffix.MatchString(p); got != want {
			t.Fatalf("hasDeviceSuffix(%q) = %v, regexp %v", p, got, want)
		}
	}
	for _, p := range []string{"", "~", "~1", "a~", "a~b~2", "PROGRA~1/x", "x.con", "x.CoN", "x.com1", "x.LPT9", "x.com", "x.nul.txt",
		"x.aux/", ".prn", "x.conx", "x.cOm\u0661", "x.\u017fon", "x.c\u212aon", "x.lpt", "~\u0661"} {
		check(t, p)
	}
	rapid.Check(t, func(rt *rapid.T) {
		p := rapid.StringOfN(rapid.SampledFrom([]rune("~.0129cCoOnNpPrRaAuUxXlLtTmM/ \u017f\u212a\u0661")), 0, 16, -1).Draw(rt, "path")
		check(rt, p)
	})
}

// TestPropertySuspiciousSegments: suspiciousPath walks the segments by hand; it finds what
// the segments split by strings.SplitSeq find, first one first.
func TestPropertySuspiciousSegments(t *testing.T) {
	bySplit := func(p string) string {
		for seg := range strings.SplitSeq(filepath.ToSlash(p), "/") {
			if why := suspiciousSegment(seg); why != "" {
				return why
			}
		}
		return ""
	}
	rapid.Check(t, func(rt *rapid.T) {
		p := rapid.StringOfN(rapid.SampledFrom([]rune("/. a\\")), 0, 16, -1).Draw(rt, "path")
		want := suspiciousWhole(p)
		if want == "" {
			want = bySplit(p)
		}
		if got := suspiciousPath(p); got != want {
			rt.Fatalf("suspiciousPath(%q) = %q, by the split segments %q", p, got, want)
		}
	})
}
