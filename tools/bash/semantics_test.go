package bash

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLastCommandWord(t *testing.T) {
	for cmd, want := range map[string]string{
		"grep x f":                    "grep",
		"cat f | grep x":              "grep",
		"grep x f; echo done":         "echo",
		"make && test -f out":         "test",
		"false || [ -d x ]":           "[",
		"FOO=1 diff a b":              "diff",
		"/usr/bin/find . -name x":     "find",
		"cd sub\nrg pattern":          "rg",
		"(grep x f)":                  "",
		"for f in *; do grep x; done": "",
		"":                            "",
		"echo 'unterminated":          "echo",
		"a | b || c && grep x":        "grep",
	} {
		if got := lastCommandWord(cmd); got != want {
			t.Errorf("lastCommandWord(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestInterpretExit(t *testing.T) {
	for _, tc := range []struct {
		cmd     string
		code    int
		isError bool
		meaning string
	}{
		{"grep x f", 1, false, "No matches found"},
		{"grep x f", 2, true, ""},
		{"rg x", 1, false, "No matches found"},
		{"diff a b", 1, false, "Files differ"},
		{"find .", 1, false, "Some directories were inaccessible"},
		{"test -f x", 1, false, "Condition is false"},
		{"ls x", 1, true, ""},
		{"grep x f | wc -l", 1, true, ""},
		{"anything", 0, false, ""},
	} {
		isError, meaning := interpretExit(tc.cmd, tc.code)
		if isError != tc.isError || meaning != tc.meaning {
			t.Errorf("interpretExit(%q, %d) = %v %q", tc.cmd, tc.code, isError, meaning)
		}
	}
}

func TestFormatOutput(t *testing.T) {
	format := func(s string, max int) formatted {
		f, err := formatOutput(strings.NewReader(s), int64(len(s)), max)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if f := format("\n\n  \nhello\nworld  \n\n", 100); f.text != "hello\nworld" || f.truncated {
		t.Errorf("trim: %+v", f)
	}
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "line %04d\n", i)
	}
	f := format(b.String(), 1064) // room for 500 characters at each end
	if !f.truncated || !strings.HasPrefix(f.text, "line 0001\n") || !strings.HasSuffix(f.text, "line 1000") {
		t.Fatalf("got %q", f.text)
	}
	head, tail, _ := strings.Cut(f.text, fmt.Sprintf("\n\n... [%d lines truncated] ...\n\n", f.elided))
	if strings.Count(head, "\n")+1+f.elided+strings.Count(tail, "\n")+1 != 1000 {
		t.Fatalf("head, %d elided and tail do not add up to 1000 lines", f.elided)
	}
	// One enormous line: cut inside it, still within the cap and valid UTF-8.
	long := strings.Repeat("é", 50000)
	f = format(long, 1000)
	if !f.truncated || f.elided != 1 || utf8.RuneCountInString(f.text) > 1000 || !utf8.ValidString(f.text) {
		t.Fatalf("long line: %d runes, elided %d", utf8.RuneCountInString(f.text), f.elided)
	}
}

func TestCapError(t *testing.T) {
	s := strings.Repeat("a", 6000) + strings.Repeat("b", 6000)
	got := capError(s)
	if want := strings.Repeat("a", 5000) + "\n\n... [2000 characters truncated] ...\n\n" + strings.Repeat("b", 5000); got != want {
		t.Fatalf("got %d bytes", len(got))
	}
	if capError("short") != "short" {
		t.Fatal("short text changed")
	}
}
