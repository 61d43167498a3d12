package bash

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzLastCommandWord(f *testing.F) {
	for _, s := range []string{"grep x f", "a && b | c", "(x)", "echo 'a", "for i in 1; do :; done", "x=1 y", "\\\n", "$(grep x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		w := lastCommandWord(cmd)
		if w != "/" && strings.Contains(w, "/") {
			t.Fatalf("%q: word %q is not a base name", cmd, w)
		}
		_, _ = interpretExit(cmd, 1)
	})
}

func FuzzFormatOutput(f *testing.F) {
	f.Add("hello\nworld\n", uint16(100))
	f.Add("\n\n\nx", uint16(70))
	f.Add(strings.Repeat("line\n", 200), uint16(200))
	f.Add(strings.Repeat("é", 300), uint16(90))
	f.Fuzz(func(t *testing.T, s string, max uint16) {
		maxChars := int(max%2000) + elisionRoom + 2
		got, err := formatOutput(strings.NewReader(s), int64(len(s)), maxChars)
		if err != nil {
			t.Fatal(err)
		}
		if !got.truncated {
			if got.text != trimOutput(s) {
				t.Fatalf("untruncated %q, want %q", got.text, trimOutput(s))
			}
			return
		}
		if n := utf8.RuneCountInString(got.text); n > maxChars {
			t.Fatalf("%d characters for a cap of %d", n, maxChars)
		}
		if got.elided < 1 || got.elided > strings.Count(s, "\n")+1 {
			t.Fatalf("elided %d of %d lines", got.elided, strings.Count(s, "\n")+1)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got.text) {
			t.Fatal("cut inside a character")
		}
	})
}
