package permission

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The directories of the generated contexts: some nest in others, so that a path can be
// under several bases at once.
var idxDirs = []string{hostAbs("/p"), hostAbs("/p/src"), hostAbs("/h"), hostAbs("/P/Src"), hostAbs("/q"), hostAbs("/p/src/deep")}

// Path elements and pattern pieces: cases that fold together (K and the Kelvin sign, s and
// the long s), names that are prefixes of others, wildcards and classes, and invalid UTF-8.
var (
	idxElems  = []string{"p", "src", "SRC", "deep", "h", "q", ".env", "x.go", "k", "\u212a", "s", "\u017f", "é", "É", "\xff", "\ufffd", "srcs", "secrets", "p.ENV"}
	idxPieces = []string{"p", "src", "SrC", "deep", "h", ".env", "x.go", "K", "\u212a", "S", "é", "\xff", "*", "*.go", "**", "s?c", "[sx]*", ".env*", "secrets", "\\*", "src/**"}
)

func drawPattern(t *rapid.T, label string) string {
	pieces := rapid.SliceOfN(rapid.SampledFrom(idxPieces), 1, 3).Draw(t, label+"pieces")
	body := strings.Join(pieces, "/")
	if rapid.Bool().Draw(t, label+"dir") {
		body += "/"
	}
	switch rapid.IntRange(0, 4).Draw(t, label+"anchor") {
	case 0:
		return "//" + body
	case 1:
		return "~/" + body
	case 2:
		return "/" + body
	case 3:
		return "./" + body
	}
	return body
}

// TestPathIndexAgreesWithLinearScan checks that the index finds the rule a scan of every rule
// finds, for matchAny and matchAll, over random rules, anchors, working directories and path
// forms.
func TestPathIndexAgreesWithLinearScan(t *testing.T) {
	// Some differences (a rule of the original cwd after the shell moved) need a few hundred
	// cases to show up; ten rounds of the default hundred find them.
	for range 10 {
		rapid.Check(t, checkPathIndex)
	}
}

func checkPathIndex(t *rapid.T) {
	orig := rapid.SampledFrom(idxDirs).Draw(t, "orig")
	pc, err := New(Config{Cwd: orig, Home: rapid.SampledFrom(append(idxDirs, "")).Draw(t, "home")})
	if err != nil {
		t.Fatal(err)
	}
	if rapid.Bool().Draw(t, "moved") {
		pc = pc.WithCwd(rapid.SampledFrom(idxDirs).Draw(t, "cwd"))
	}
	b := rapid.SampledFrom([]Behavior{Allow, Ask, Deny}).Draw(t, "behavior")
	var rules []*Rule
	for i := range rapid.IntRange(0, 12).Draw(t, "nrules") {
		label := "rule" + string(rune('a'+i))
		r := &Rule{Value: RuleValue{Tool: "Read", Content: drawPattern(t, label)}, Behavior: b, Source: SourceProject,
			Root: rapid.SampledFrom(append(idxDirs, "")).Draw(t, label+"root")}
		if r.compile(nil) != nil {
			continue
		}
		rules = append(rules, r)
	}
	var forms []pathForm
	for i := range rapid.IntRange(1, 3).Draw(t, "nforms") {
		label := "form" + string(rune('a'+i))
		elems := rapid.SliceOfN(rapid.SampledFrom(idxElems), 0, 4).Draw(t, label+"elems")
		p := hostAbs("/" + strings.Join(elems, "/"))
		forms = append(forms, pathForm{path: p, lower: foldPath(p), dir: rapid.Bool().Draw(t, label+"dir")})
	}
	x := newPathIndex(rules)
	if got, want := x.matchAny(pc, forms), pc.matchAny(rules, forms); got != want {
		t.Fatalf("matchAny: index found %v, scan %v", describe(got), describe(want))
	}
	if got, want := x.matchAll(pc, forms), pc.matchAll(rules, forms); got != want {
		t.Fatalf("matchAll: index found %v, scan %v", describe(got), describe(want))
	}
}

func describe(r *Rule) string {
	if r == nil {
		return "no rule"
	}
	return r.Describe() + " root " + r.Root
}
