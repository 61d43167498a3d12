package bashrules

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// The read-only set is the knowledge base's entries flagged readonly (readOnlyCommands); what a
// program's arguments need beyond its entry's options is registered beside the entry
// (registerReadOnly in kb_NAME.go). Here are the pieces that code shares, and IsReadOnly.

// roFunc reports why a command with these (known) arguments is not read-only, or "" when it
// only reads. Path arguments are checked separately: a read-only command is allowed only when
// every path it touches passes the Read check, and never when it writes any.
type roFunc func(args []Word) string

func anyArgs([]Word) string { return "" }

func noArgs(args []Word) string {
	if len(args) > 0 {
		return "takes no arguments when read-only"
	}
	return ""
}

// forbid returns a roFunc that refuses the given options (by name, or by prefix when the name
// ends in "=").
func forbid(names ...string) roFunc {
	return func(args []Word) string {
		for _, a := range args {
			v := a.Value
			if v == "--" {
				return ""
			}
			if !strings.HasPrefix(v, "-") {
				continue
			}
			for _, n := range names {
				if v == n || (strings.HasSuffix(n, "=") && strings.HasPrefix(v, n)) || (strings.HasPrefix(n, "--") && (strings.HasPrefix(v, n+"=") || longPrefix(v, n))) {
					return "option " + v + " is not read-only"
				}
				// -n inside a cluster of short options, such as -ri.
				if len(n) == 2 && n[0] == '-' && !strings.HasPrefix(v, "--") && strings.IndexByte(v[1:], n[1]) >= 0 && clusterOnly(v) {
					return "option " + n + " is not read-only"
				}
			}
		}
		return ""
	}
}

// clusterOnly reports whether a short-option word is made only of letters (so a letter in it
// is an option, not an attached value such as -n5).
func clusterOnly(v string) bool {
	for i := 1; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// readOnlyFor returns the read-only check of a command name, python's --version included.
func readOnlyFor(name string) (roFunc, bool) {
	if f, ok := readOnlyCommands()[name]; ok {
		return f, true
	}
	if versionedPython().MatchString(name) {
		return versionOnly("--version", "-V"), true
	}
	return nil, false
}

func versionOnly(flags ...string) roFunc {
	return func(args []Word) string {
		if len(args) == 1 && contains(flags, args[0].Value) {
			return ""
		}
		return "only " + strings.Join(flags, " or ") + " is read-only"
	}
}

// IsReadOnly reports whether a command only reads: every part is in the read-only set with
// options that keep it so, nothing is written through a redirection, and the directory is not
// changed. It is used to decide whether calls may run concurrently, and answers false whenever
// it is unsure. It does not check paths against rules; [Check] does.
func IsReadOnly(pc *permission.Context, command string) bool {
	if pc == nil {
		return false
	}
	if spoofing(command) != "" || len(command) > MaxCommandLength {
		return false
	}
	a, err := Analyze(command)
	if err != nil || a.Truncated || len(a.Issues) > 0 || len(a.Commands) > MaxSubcommands {
		return false
	}
	for _, rd := range a.Redirects {
		switch rd.Kind {
		case RedirOut, RedirInOut:
			if !exemptOutput(rd.Target) {
				return false
			}
		case RedirIn:
			if !rd.Target.Known {
				return false
			}
		}
	}
	kids := map[*Command][]*Command{}
	for _, c := range a.Commands {
		if c.Parent != nil {
			kids[c.Parent] = append(kids[c.Parent], c)
		}
	}
	for _, c := range a.Commands {
		if c.Parent == nil && !readOnlyCommand(pc, c, kids) {
			return false
		}
	}
	return true
}

func readOnlyCommand(pc *permission.Context, c *Command, kids map[*Command][]*Command) bool {
	switch c.Kind {
	case KindArith, KindTest, KindFuncCall:
		return true
	case KindAssign, KindDecl:
		return unsafeAssignment(c) == ""
	}
	if c.Transparent {
		n := 0
		for _, k := range kids[c] {
			if k.Speculative {
				continue
			}
			if !readOnlyCommand(pc, k, kids) {
				return false
			}
			n++
		}
		return n > 0 && len(c.Issues) == 0
	}
	if !fullyKnown(c, c.Issues) || !safeAssigns(c.Assigns) || c.OtherDir {
		return false
	}
	name, trusted := commandName(c.Argv[0])
	if !trusted {
		return false
	}
	ro, ok := readOnlyFor(name)
	if !ok || ro(c.Argv[1:]) != "" || subscriptIssue(name, c) != "" || execOption(name, c.Argv[1:]) != "" {
		return false
	}
	if spec, ok := pathFuncOf(name); ok {
		pr := spec(c.Argv[1:])
		if len(pr.issues) > 0 {
			return false
		}
		for _, u := range pr.uses {
			if isWrite(u.acc) || (u.acc == accWrite) {
				return false
			}
		}
	}
	if name == "git" && (gitInBareRepo(context.Background(), pc.Cwd(), c.Argv[1:]) || gitElsewhere(context.Background(), pc.Cwd(), pc.OriginalCwd(), c.Argv[1:]) != "") {
		return false
	}
	return true
}

// gitInBareRepo reports whether git would run in a directory laid out as a bare repository
// (HEAD, objects/ and refs/ without .git): a repository planted in the project whose
// configuration (core.fsmonitor, core.pager) can run programs.
func gitInBareRepo(ctx context.Context, cwd string, args []Word) bool {
	dir := cwd
	for i := 0; i+1 < len(args); i++ {
		if args[i].Value == "-C" {
			d := args[i+1].Value
			if !filepath.IsAbs(d) {
				d = filepath.Join(dir, d)
			}
			dir = d
			i++
		}
	}
	if _, err := permission.Lstat(ctx, filepath.Join(dir, ".git")); err == nil {
		return false
	}
	head, err1 := os.Stat(filepath.Join(dir, "HEAD"))
	objs, err2 := os.Stat(filepath.Join(dir, "objects"))
	refs, err3 := os.Stat(filepath.Join(dir, "refs"))
	return err1 == nil && err2 == nil && err3 == nil && !head.IsDir() && objs.IsDir() && refs.IsDir()
}
