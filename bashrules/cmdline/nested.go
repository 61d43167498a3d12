package cmdline

import "strings"

// findExec records the commands of find's -exec, -execdir, -ok and -okdir.
func (w *walker) findExec(c *Command, args []Word, sc scope) {
	roots, expr := FindRoots(args)
	for i := 0; i < len(expr); i++ {
		a := expr[i]
		if !a.Known {
			continue
		}
		switch a.Value {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(expr) && !(expr[j].Known && (expr[j].Value == ";" || expr[j].Value == "+")) {
			j++
		}
		if j == i+1 {
			continue
		}
		child := w.child(c, placeholders(expr[i+1:j], "{}"), "find "+a.Value, sc)
		child.Roots = roots
		if a.Value == "-execdir" || a.Value == "-okdir" {
			child.OtherDir = true
		}
		w.unwrap(child, sc)
		i = j
	}
}

// FindRoots splits find's arguments into start paths and the expression.
func FindRoots(args []Word) (roots, expr []Word) {
	i := 0
	// Options that come before the start paths.
	for i < len(args) && args[i].Known && (args[i].Value == "-H" || args[i].Value == "-L" || args[i].Value == "-P" || strings.HasPrefix(args[i].Value, "-O") || args[i].Value == "-D") {
		if args[i].Value == "-D" {
			i++
		}
		i++
	}
	for i < len(args) {
		a := args[i]
		if a.Known && (strings.HasPrefix(a.Value, "-") || a.Value == "(" || a.Value == "!" || a.Value == ")" || a.Value == ",") {
			break
		}
		roots = append(roots, a)
		i++
	}
	if len(roots) == 0 {
		roots = []Word{{Src: ".", Value: ".", Known: true}}
	}
	return roots, args[min(i, len(args)):]
}

// inlineCode looks for commands in an interpreter's inline code: each string literal that
// parses as a shell command becomes a speculative child.
func (w *walker) inlineCode(c *Command, name string, flags []string, args []Word, sc scope) {
	var code []Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			continue
		}
		for _, f := range flags {
			if a.Value == f && i+1 < len(args) {
				code = append(code, args[i+1])
			} else if strings.HasPrefix(f, "--") && strings.HasPrefix(a.Value, f+"=") {
				cw := a
				cw.Value = strings.TrimPrefix(a.Value, f+"=")
				code = append(code, cw)
			}
		}
		if len(flags) == 0 && !strings.HasPrefix(a.Value, "-") {
			// awk and tclsh: the program is the first operand.
			code = append(code, a)
			break
		}
	}
	n := 0
	for _, cw := range code {
		if !cw.Known {
			continue
		}
		for _, lit := range stringLiterals(cw.Value) {
			if n++; n > 16 {
				return
			}
			w.script(c, lit, name+" code", sc, true, false)
		}
	}
}

// stringLiterals returns the contents of the quoted strings in program text.
func stringLiterals(code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(code) && code[j] != q; j++ {
			if code[j] == '\\' && j+1 < len(code) {
				j++
			}
			b.WriteByte(code[j])
		}
		if s := strings.TrimSpace(b.String()); len(s) >= 2 && strings.ContainsAny(s, " \t") {
			out = append(out, s)
		}
		i = j
	}
	return out
}

// GitCommandKeys are configuration keys whose values git runs as commands.
var GitCommandKeys = []string{"core.pager", "core.sshcommand", "core.editor", "core.fsmonitor", "core.askpass",
	"diff.external", "sequence.editor", "gpg.program", "credential.helper", "pager.", "alias.", "difftool.", "mergetool.",
	"filter.", "diff.", "merge."}

// gitConfigCommands finds commands in git -c key=value settings (alias.x=!cmd, core.pager=cmd)
// and analyses them speculatively, for deny and ask rules.
func (w *walker) gitConfigCommands(c *Command, args []Word, sc scope) {
	for i := 0; i+1 < len(args); i++ {
		if !args[i].Known || args[i].Value != "-c" {
			if args[i].Known && !strings.HasPrefix(args[i].Value, "-") {
				return // the subcommand
			}
			continue
		}
		kv := args[i+1]
		i++
		if !kv.Known {
			continue
		}
		key, val, ok := strings.Cut(kv.Value, "=")
		if !ok {
			continue
		}
		key = strings.ToLower(key)
		for _, p := range GitCommandKeys {
			if key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(key, p)) {
				w.script(c, strings.TrimPrefix(val, "!"), "git -c "+key, sc, true, false)
				break
			}
		}
	}
}
