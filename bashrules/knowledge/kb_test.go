package knowledge

import (
	"strings"
	"testing"
)

// TestEveryEntryLoads loads the embedded entries; a broken one fails here, naming its place.
func TestEveryEntryLoads(t *testing.T) {
	b, err := LoadFS(embedded, "programs")
	if err != nil {
		t.Fatal(err)
	}
	opts := 0
	for _, p := range b.Programs() {
		opts += len(p.Options)
		for _, s := range p.Subcommands() {
			opts += len(s.Options)
		}
	}
	t.Logf("%d programs, %d options", len(b.Programs()), opts)
	if len(b.Programs()) < 60 {
		t.Errorf("%d programs, want at least 60", len(b.Programs()))
	}
}

func TestParseErrorsArePositioned(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"opt -x", "f.kb:1:1: opt before the first program"},
		{"program a\nopt x", "f.kb:2:5: opt needs at least one spelling"},
		{"program a\nopt -x frob", `f.kb:2:8: unknown word "frob"`},
		{"program a\nopt -x\nopt -x", "f.kb:3:5: option -x is already described at f.kb:2"},
		{"program a\nflags wat", `f.kb:2:7: unknown flag "wat"`},
		{"program a\nbogus", `f.kb:2:1: unknown directive "bogus"`},
		{"program a\nsub b\nsub b", "f.kb:3:5: subcommand b is already described at f.kb:2"},
		{"program a\nenv X wat", `f.kb:2:7: unknown effect "wat"`},
		{"program a\nopt --x as=", `f.kb:2:12: "" is not a canonical name`},
		{"program a!", `f.kb:1:9: "a!" is not a command name`},
	} {
		_, err := Parse("f.kb", []byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
