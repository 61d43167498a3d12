package commands

import (
	"context"
	"strings"
	"testing"
)

// FuzzExpand: any body and arguments either expand within the bound or fail with an error; the
// expander never panics, asks its host only about spans written in the body, and never asks
// about an "@" or "!`" that came in with the arguments.
func FuzzExpand(f *testing.F) {
	f.Add("review $ARGUMENTS", "main")
	f.Add("a=$1 b=$2\n!`git log $1`\n@$2", `one "two words"`)
	f.Add("!`echo`!`x`@y @ @@z", `'unclosed`)
	f.Add("$ARGUMENTS$ARGUMENTS$9$0$", `a\ b "c\"d"`)
	f.Fuzz(func(t *testing.T, body, args string) {
		h := &fakeHost{}
		c := &Command{Name: "f", File: "f.md", Body: body, BodyLine: 1}
		out, err := c.Expand(context.Background(), args, h)
		if err != nil {
			return
		}
		if len(out) > MaxPrompt {
			t.Fatalf("expanded to %d bytes, past the bound", len(out))
		}
		for _, a := range h.asked {
			_, what, _ := strings.Cut(a, " ")
			if what == "" {
				continue
			}
			// What was asked about starts as written in the body (arguments go in after).
			if !strings.Contains(body, "!`") && strings.HasPrefix(a, "Bash ") {
				t.Fatalf("asked %q of a body without a command span", a)
			}
			if !strings.Contains(body, "@") && strings.HasPrefix(a, "Read ") {
				t.Fatalf("asked %q of a body without an include", a)
			}
		}
	})
}
