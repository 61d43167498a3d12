package pathrule

import (
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestLiteralPrefixIsNecessary checks the promise an index relies on: when a pattern matches
// a path, the path's leading elements (anchored) or some element (unanchored) have the keys
// LiteralPrefix returned.
func TestLiteralPrefixIsNecessary(t *testing.T) {
	elems := []string{"src", "SRC", "Src", "a", "b", "k", "\u212a", "s", "\u017f", "ß", "SS", "ǅ", "ǆ", "Ǆ", "é", "É", "\xff", "\xfe", "\ufffd", "x.go", "*", "*.go", "[ab]", "?", "**", "\\*", "é*"}
	rapid.Check(t, func(t *rapid.T) {
		pe := rapid.SliceOfN(rapid.SampledFrom(elems), 1, 4).Draw(t, "pattern")
		pat := strings.Join(pe, "/")
		if rapid.Bool().Draw(t, "lead") {
			pat = "/" + pat
		}
		if rapid.Bool().Draw(t, "dirOnly") {
			pat += "/"
		}
		p, err := Compile(pat)
		if err != nil {
			t.Skip()
		}
		var pathElems []string
		for _, e := range rapid.SliceOfN(rapid.SampledFrom(elems), 0, 5).Draw(t, "path") {
			if !strings.ContainsAny(e, "*?[\\") {
				pathElems = append(pathElems, e)
			}
		}
		rel := strings.Join(pathElems, "/")
		isDir := rapid.Bool().Draw(t, "isDir")
		if !p.Match(rel, isDir) {
			return
		}
		keys, anchored := p.LiteralPrefix()
		if len(keys) == 0 {
			return
		}
		if !anchored {
			for _, e := range pathElems {
				if FoldKey(e) == keys[0] {
					return
				}
			}
			t.Fatalf("%q matches %q but no element has key %q", pat, rel, keys[0])
		}
		if len(pathElems) < len(keys) {
			t.Fatalf("%q matches %q, shorter than its literal prefix %q", pat, rel, keys)
		}
		for i, k := range keys {
			if FoldKey(pathElems[i]) != k {
				t.Fatalf("%q matches %q but element %d has key %q, not %q", pat, rel, i, FoldKey(pathElems[i]), k)
			}
		}
	})
}

func TestFoldKey(t *testing.T) {
	for _, c := range []struct{ a, b string }{{"src", "SRC"}, {"k", "\u212a"}, {"s", "\u017f"}, {"é", "É"}, {"ǅ", "Ǆ"}} {
		if FoldKey(c.a) != FoldKey(c.b) {
			t.Errorf("FoldKey(%q) = %q, FoldKey(%q) = %q; want equal", c.a, FoldKey(c.a), c.b, FoldKey(c.b))
		}
	}
	if FoldKey("ß") == FoldKey("ss") {
		t.Error(`FoldKey equates "ß" and "ss", which Match does not`)
	}
	if n := testing.AllocsPerRun(100, func() { FoldKey("lower.go") }); n != 0 {
		t.Errorf("FoldKey of lower-case ASCII allocates %v times", n)
	}
}

// TestParsePlainAgreesWithGeneral checks the shortcut for plain ASCII patterns against the
// general parser, element by element.
func TestParsePlainAgreesWithGeneral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("aZz09._-/ ~!#]{}")), 1, 20, -1).Draw(t, "pattern")
		if !plainASCII(s) {
			t.Fatalf("plainASCII(%q) = false", s)
		}
		anchored := rapid.Bool().Draw(t, "anchored")
		want, all, err := parseGeneral(s, anchored, nil)
		if err != nil || all {
			t.Fatalf("parseGeneral(%q) = all %v, %v", s, all, err)
		}
		if got := parsePlain(s, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("parsePlain(%q) = %+v, parseGeneral %+v", s, got, want)
		}
	})
	for _, s := range []string{"a*", "a?", "[a]", `a\b`, "é"} {
		if plainASCII(s) {
			t.Errorf("plainASCII(%q) = true", s)
		}
	}
}
