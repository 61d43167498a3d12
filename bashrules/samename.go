package bashrules

import (
	"strings"

	"github.com/reinsdev/reins/bashrules/cmdline"
	"github.com/reinsdev/reins/bashrules/knowledge"
)

// A knowledge-base entry's names all run its program, unless it says group: fd is fdfind on
// Debian, sh is dash, awk is gawk or mawk, vim is vi. A deny or ask rule is about the program, so it is indexed
// under each of them (otherNames), and a command run under a versioned name (python3.12,
// ruby3.2) is also matched as its entry's (programCandidate). Allow rules stay as written: a
// rule that allows awk does not allow gawk's extensions unseen.

// otherNames returns a rule's content with its first word, when that is one name of a
// knowledge-base entry with several (not a group), replaced by each of the others.
func otherNames(content string) []string {
	first, rest := content, ""
	if i := strings.IndexAny(content, " :"); i >= 0 {
		first, rest = content[:i], content[i:]
	}
	if first == "" || strings.ContainsAny(first, "*\\/") {
		return nil
	}
	e, ok := knowledge.Facts(first)
	if !ok || len(e.Names) < 2 || e.Group {
		return nil
	}
	var out []string
	for _, n := range e.Names {
		if n != first {
			out = append(out, n+rest)
		}
	}
	return out
}

// programCandidate returns the command line under its entry's first name when the program
// name is a versioned interpreter name that no entry lists itself (python3.12 is python), or
// "".
func programCandidate(c *Command) string {
	name, _ := c.Name()
	if name == "" {
		return ""
	}
	if _, ok := knowledge.Facts(name); ok {
		return ""
	}
	e, ok := cmdline.Interpreter(name)
	if !ok {
		return ""
	}
	return joinValues(append([]Word{{Value: e.Names[0], Known: true}}, c.Argv[1:]...), false)
}
