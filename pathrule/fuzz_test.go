package pathrule

import (
	"reflect"
	"strings"
	"testing"
)

func FuzzCompileMatch(f *testing.F) {
	for _, c := range matchCases {
		f.Add(c.pattern, c.rel, c.isDir)
	}
	f.Add("a/b", "a/b/c", false)
	f.Add("**/x/**/y/", "x/y/z", true)
	f.Add("[[:alpha:]-z]", "-", false)
	f.Fuzz(func(t *testing.T, pattern, rel string, isDir bool) {
		p, err := Compile(pattern)
		if err == nil {
			p.Match(rel, isDir)
			if p.String() != pattern {
				t.Fatalf("String() = %q, want %q", p.String(), pattern)
			}
			// Keep the naive model's inputs small: it is slow. Random paths
			// rarely match, so also try paths made from the pattern.
			if len(pattern) <= 64 && len(rel) <= 64 {
				c := concretize(pattern)
				for _, r := range []string{rel, c, c + "/z", "d/" + c, "d/" + c + "/z"} {
					got := p.Match(r, isDir)
					want, valid := refMatch(pattern, r, isDir)
					if !valid || got != want {
						t.Fatalf("Compile(%q).Match(%q, %v) = %v, model says %v (valid %v)", pattern, r, isDir, got, want, valid)
					}
				}
			}
		} else if len(pattern) <= 64 && len(rel) <= 64 {
			if m, valid := refMatch(pattern, rel, isDir); valid && m {
				t.Fatalf("Compile(%q) failed (%v), but the model matches %q", pattern, err, rel)
			}
		}
		checkLiterals(t, pattern)
		checkBatch(t, pattern, rel)
	})
}

// checkBatch compiles the pattern through a Batch that holds other patterns before and after
// it, and checks that it is the pattern Compile makes (a batch shares arrays between them).
func checkBatch(t *testing.T, pattern, rel string) {
	var b Batch
	_, _ = b.Compile(rel)
	got, err := b.Compile(pattern)
	_, _ = b.Compile(pattern + "/" + rel)
	want, wantErr := Compile(pattern)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("Batch.Compile(%q) error %v, Compile %v", pattern, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("Batch.Compile(%q) = %+v, Compile %+v", pattern, got, want)
	}
}

// checkLiterals derives two glob-free elements a and b from the input and
// checks, for clean paths, the basic promises: "a/b" is anchored and matches a/b and anything
// below it, in any ASCII case; "b" matches at any depth.
func checkLiterals(t *testing.T, s string) {
	a, b := s[:len(s)/2], s[len(s)/2:]
	literal := func(e string) bool {
		return e != "" && e != "." && e != ".." && !strings.ContainsAny(e, "*?[\\/\n\r") && e[0] != '#' && e[0] != '!' && !strings.HasSuffix(e, " ")
	}
	if !literal(a) || !literal(b) {
		return
	}
	ab := a + "/" + b
	for _, pat := range []string{ab, "/" + ab, ab + "/**", "/" + ab + "/**"} {
		p, err := Compile(pat)
		if err != nil {
			t.Fatalf("Compile(%q): %v", pat, err)
		}
		for _, rel := range []string{ab, ab + "/c", ab + "/c/d", upperASCII(ab), upperASCII(ab) + "/x"} {
			if !p.Match(rel, false) || !p.Match(rel, true) {
				t.Fatalf("Compile(%q) does not match %q", pat, rel)
			}
		}
		for _, rel := range []string{a + a + "/" + b, a + a + "/" + ab, a, b, ""} {
			if p.Match(rel, true) {
				t.Fatalf("Compile(%q) matches %q", pat, rel)
			}
		}
	}
	p, err := Compile(b)
	if err != nil {
		t.Fatalf("Compile(%q): %v", b, err)
	}
	for _, rel := range []string{b, "x/" + b, "x/y/" + upperASCII(b) + "/z"} {
		if !p.Match(rel, false) {
			t.Fatalf("Compile(%q) does not match %q", b, rel)
		}
	}
}

// concretize turns a pattern into a path it probably matches.
func concretize(pattern string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '\\':
			if i+1 < len(pattern) {
				i++
				b.WriteByte(pattern[i])
			}
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				b.WriteString("s/t")
				i++
			}
		case '?':
			b.WriteByte('q')
		default:
			b.WriteByte(c)
		}
	}
	return strings.Trim(b.String(), "/ ")
}

// upperASCII upper-cases ASCII letters only, keeping invalid UTF-8 intact
// (strings.Map would replace it).
func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
