package cli

import (
	"strings"
	"testing"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// FuzzExpandToolLists feeds arbitrary argument lists (NUL-separated) to the variadic
// expansion. It must not panic, and when it succeeds no list flag is left taking a separate
// value (each became --flag=value) before a "--", every argument after "--" is kept as it
// was, and no argument is lost: the values of the output are the arguments of the input.
func FuzzExpandToolLists(f *testing.F) {
	for _, s := range []string{
		"-p\x00--disallowedTools\x00Bash(curl:*)\x00Bash(rm:*)\x00--\x00fix it",
		"--allowedTools=Read\x00hi",
		"--allowed-tools\x00Read,Edit\x00--model\x00m\x00prompt",
		"tool\x00run\x00Bash\x00--disallowedTools\x00Bash(rm\x00--input\x00{}",
		"--append-system-prompt\x00--disallowedTools\x00x",
		"--disallowedTools",
		"--disallowedTools\x00-",
	} {
		f.Add(s)
	}
	root := NewCmdRoot(&cmdutil.Factory{Getenv: func(string) string { return "" }})
	valued := cmdutil.ValueFlags(root)
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		out, err := expandToolLists(root, args)
		if err != nil {
			return
		}
		for i, a := range out {
			if a == "--" {
				break
			}
			if _, ok := cmdutil.ToolListFlag(a); ok && (i == 0 || !valued[out[i-1]]) {
				t.Fatalf("list flag %q left taking a separate value in %q (from %q)", a, out, args)
			}
		}
		if a, b := listValues(args, valued), listValues(out, valued); strings.Join(a, "\x00") != strings.Join(b, "\x00") {
			t.Fatalf("arguments changed:\n in %q\nout %q", a, b)
		}
	})
}

// listValues is what an argument list says with the spelling of list flags taken out: a
// "--allowedTools=v" is v, and a bare list flag is its next argument, whatever that is.
// Expansion must keep it unchanged.
// Another flag's value is taken as it is.
func listValues(args []string, valued map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if _, list := cmdutil.ToolListFlag(a); !list && valued[a] && i+1 < len(args) {
			out = append(out, a, args[i+1])
			i++
			continue
		}
		if _, ok := cmdutil.ToolListFlag(a); ok {
			if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			continue
		}
		if name, v, ok := strings.Cut(a, "="); ok {
			if _, list := cmdutil.ToolListFlag(name); list {
				out = append(out, v)
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
