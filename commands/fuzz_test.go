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

// FuzzParse: any command file either parses or fails with a positioned error; a parsed one has a
// non-empty body and rules of source command only, each with the file's name and a line.
func FuzzParse(f *testing.F) {
	f.Add("---\ndescription: d\nallowed-tools: Bash(git diff:*), Read\n---\nbody $1\n")
	f.Add("---\nallowed-tools:\n  - Bash(npm run lint:*)\n  - Edit(src/**)\n---\n!`npm run lint`\n")
	f.Add("no header at all\n")
	f.Add("---\ndisable-model-invocation: maybe\n---\nx")
	f.Add("---\nallowed-tools: [\"Bash(x\"]\n---\nx")
	f.Fuzz(func(t *testing.T, src string) {
		c, err := Parse("f.md", []byte(src), "f", SourceProject)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.md") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if strings.TrimSpace(c.Body) == "" {
			t.Fatal("a command with an empty body parsed")
		}
		for _, r := range c.Rules(true) {
			if r.Source.String() != "command" || r.Origin.File != "f.md" || r.Origin.Line < 2 {
				t.Fatalf("rule %s", r.Describe())
			}
		}
	})
}
