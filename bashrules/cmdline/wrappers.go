package cmdline

import (
	"path"
	"slices"
	"strings"
)

// systemDirs are where the standard tools live; /bin/cat is cat, /tmp/x/cat is not.
var systemDirs = map[string]bool{"/bin": true, "/usr/bin": true, "/sbin": true, "/usr/sbin": true}

// CommandName returns the name a command is known by. A path in a system directory counts as
// the tool (trusted); any other path names its base but is not trusted to be that tool.
func CommandName(w Word) (name string, trusted bool) {
	if !w.Known || w.Glob || w.Value == "" {
		return "", false
	}
	v := w.Value
	if !strings.ContainsRune(v, '/') {
		return v, true
	}
	dir, base := path.Split(v)
	return base, systemDirs[path.Clean(dir)]
}

// harmlessShellOptions may be set with -o without changing how a script is read.
var harmlessShellOptions = map[string]bool{"pipefail": true, "errexit": true, "nounset": true, "xtrace": true,
	"verbose": true, "noclobber": true, "noglob": true, "posix": true, "noexec": true}

// WrapperSpec describes a command that runs another command given as its arguments, as its
// knowledge-base entry's wrapper role says.
type WrapperSpec struct {
	// Safe wrappers are stripped for allow matching: the command they run is what is allowed.
	Safe bool
	// Peel finds where the wrapped command starts; nil when the entry says it is a guess.
	Peel PeelFunc
}

// Wrapper returns the wrapper role of a command name: the commands that run another command
// given as their arguments.
func Wrapper(name string) (WrapperSpec, bool) {
	s, ok := roles().wrappers[name]
	return s, ok
}

// flagsPeel peels a wrapper with the given boolean and value-taking short options and long
// options; the wrapped command starts at the first operand.
func flagsPeel(boolShort, valueShort string, boolLong, valueLong []string) PeelFunc {
	return func(args []Word) (int, *Word, bool, bool) {
		i, ok := skipOptions(args, boolShort, valueShort, boolLong, valueLong)
		return i, nil, false, ok
	}
}

// skipOptions skips leading options and a "--"; it returns the index of the first operand.
func skipOptions(args []Word, boolShort, valueShort string, boolLong, valueLong []string) (int, bool) {
	i := 0
	for i < len(args) {
		a := args[i]
		if !a.Known {
			return i, false
		}
		v := a.Value
		if v == "--" {
			return i + 1, true
		}
		if len(v) < 2 || v[0] != '-' {
			return i, true
		}
		if strings.HasPrefix(v, "--") {
			name, _, hasValue := strings.Cut(v[2:], "=")
			switch {
			case slices.Contains(valueLong, name):
				if !hasValue {
					i++
				}
			case slices.Contains(boolLong, name) && !hasValue:
			default:
				return i, false
			}
			i++
			continue
		}
		for j := 1; j < len(v); j++ {
			f := v[j]
			if strings.IndexByte(valueShort, f) >= 0 {
				if j == len(v)-1 {
					i++
				}
				break
			}
			if strings.IndexByte(boolShort, f) < 0 {
				return i, false
			}
		}
		i++
	}
	return i, true
}

var EnvAssignRE = LazyRE(`^[A-Za-z_][A-Za-z0-9_]*=`)

// XargsReplace finds where xargs's command starts and its replace string (-I, -i).
func XargsReplace(args []Word) (inner int, replace string, ok bool) {
	i := 0
	for i < len(args) {
		a := args[i]
		if !a.Known {
			return i, replace, false
		}
		v := a.Value
		if v == "--" {
			return i + 1, replace, true
		}
		if len(v) < 2 || v[0] != '-' {
			return i, replace, true
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasValue := strings.Cut(v[2:], "=")
			switch name {
			case "null", "interactive", "no-run-if-empty", "verbose", "exit", "open-tty", "show-limits":
			case "replace":
				replace = "{}"
				if hasValue {
					replace = val
				}
			case "arg-file", "delimiter", "eof", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var":
				if !hasValue {
					i++
				}
			default:
				return i, replace, false
			}
			i++
			continue
		}
		switch f := v[1]; {
		case strings.IndexByte("0prtxo", f) >= 0 && strings.Trim(v[1:], "0prtxo") == "":
		case f == 'I':
			if len(v) > 2 {
				replace = v[2:]
			} else if i+1 < len(args) && args[i+1].Known {
				replace = args[i+1].Value
				i++
			} else {
				return i, replace, false
			}
		case f == 'i':
			replace = "{}"
			if len(v) > 2 {
				replace = v[2:]
			}
		case f == 'e' || f == 'l':
		case strings.IndexByte("adELnPs", f) >= 0:
			if len(v) == 2 {
				i++
			}
		default:
			return i, replace, false
		}
		i++
	}
	return i, replace, true
}

// unwrap records the commands a command runs on its behalf: the script of bash -c, eval and
// trap, the command of a wrapper such as sudo or timeout, find's -exec commands, and commands
// spotted in an interpreter's inline code.
func (w *walker) unwrap(c *Command, sc scope) {
	if len(c.Argv) == 0 {
		return
	}
	name, trusted := CommandName(c.Argv[0])
	if name == "" {
		return
	}
	args := c.Argv[1:]
	switch {
	case IsShell(name):
		w.shell(c, name, args, sc, trusted)
	case name == "git":
		w.gitConfigCommands(c, args, sc)
	case name == "eval":
		vals := make([]string, 0, len(args))
		for _, a := range args {
			if !a.Known || a.Placeholder {
				c.Issues = append(c.Issues, "eval runs a script that is not a literal string")
				return
			}
			vals = append(vals, a.Value)
		}
		if !w.script(c, strings.Join(vals, " "), "eval", sc, false, true) {
			c.Issues = append(c.Issues, "eval runs a script that does not parse")
			return
		}
		c.Transparent = trusted
	case name == "trap":
		if len(args) >= 2 && args[0].Known && args[0].Value != "-" && !strings.HasPrefix(args[0].Value, "-") {
			if !w.script(c, args[0].Value, "trap", sc, false, true) {
				c.Issues = append(c.Issues, "trap handler does not parse")
			}
		} else if len(args) >= 1 && !args[0].Known {
			c.Issues = append(c.Issues, "trap handler is not a literal string")
		}
	case name == "find":
		w.findExec(c, args, sc)
	case name == "xargs":
		w.wrapped(c, name, args, sc, trusted)
	default:
		if _, ok := Wrapper(name); ok {
			w.wrapped(c, name, args, sc, trusted)
			return
		}
		if rest, script, ok := launched(name, args); ok {
			if script != nil && script.Known {
				w.script(c, script.Value, name, sc, true, false)
			}
			w.speculate(c, name, rest, sc)
			return
		}
		if lines, ok := w.hooks.runs(c, name, args); ok {
			for i, s := range lines {
				if i == 16 {
					break
				}
				w.script(c, s, name+" runs", sc, true, false)
			}
			return
		}
		if flags, ok := interpreterFlags(name); ok {
			w.inlineCode(c, name, flags, args, sc)
		}
	}
}

// shell handles bash, sh and the other shells: a -c script, a script file, or standard input.
func (w *walker) shell(c *Command, name string, args []Word, sc scope, trusted bool) {
	wantScript, understood := false, true
	i := 0
flags:
	for ; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			understood = false
			break
		}
		v := a.Value
		switch {
		case v == "--" || v == "-":
			i++
			break flags
		case strings.HasPrefix(v, "--"):
			switch v {
			case "--norc", "--noprofile", "--posix", "--login", "--verbose", "--noediting", "--restricted":
			case "--rcfile", "--init-file":
				understood = false
				i++
			default:
				understood = false
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			for j := 1; j < len(v); j++ {
				switch f := v[j]; {
				case f == 'c':
					wantScript = true
				case f == 'o':
					// Shell options that change globbing or what runs (dotglob is set with -O,
					// never understood here) make the script's analysis unsafe.
					if j != len(v)-1 || i+1 >= len(args) || !args[i+1].Known || !harmlessShellOptions[args[i+1].Value] {
						understood = false
					}
					if j == len(v)-1 {
						i++
					}
				case f == 'O':
					understood = false
					if j == len(v)-1 {
						i++
					}
				case strings.IndexByte("euxvlisnabfhkmprtBCEHPT", f) >= 0:
				default:
					understood = false
				}
			}
		default:
			break flags
		}
	}
	transparent := understood && trusted && PosixShell(name)
	operands := args[min(i, len(args)):]
	if wantScript {
		if len(operands) == 0 {
			return
		}
		s := operands[0]
		if !s.Known || s.Placeholder {
			c.Issues = append(c.Issues, name+" -c runs a script that is not a literal string")
			return
		}
		if !w.script(c, s.Value, name+" -c", sc, false, false) {
			c.Issues = append(c.Issues, name+" -c runs a script that does not parse")
			return
		}
		c.Transparent = transparent
		return
	}
	if len(operands) > 0 {
		return // a script file: what it does is not visible here
	}
	fed := false
	for _, r := range c.Redirects {
		if r.Kind == RedirIn {
			fed = true
			c.Issues = append(c.Issues, name+" runs a script read from a file")
		}
		if r.Kind != RedirHeredoc && r.Kind != RedirHereString {
			continue
		}
		fed = true
		if !r.Body.Known {
			c.Issues = append(c.Issues, name+" reads a script that is not literal text")
			return
		}
		if !w.script(c, r.Body.Value, name+" <<", sc, false, false) {
			c.Issues = append(c.Issues, name+" reads a script that does not parse")
			return
		}
		c.Transparent = transparent
	}
	if !fed {
		c.ReadsStdin = true
		c.Issues = append(c.Issues, name+" runs a script read from its input")
	}
}

// wrapped handles wrappers: the command they run becomes a child. A wrapper whose options are
// not understood gets speculative children at every later word, so that deny and ask rules
// still see whichever of them is the real command.
func (w *walker) wrapped(c *Command, name string, args []Word, sc scope, trusted bool) {
	spec, _ := Wrapper(name)
	if name == "command" && len(args) > 0 && args[0].Known && (args[0].Value == "-v" || args[0].Value == "-V") {
		return // a lookup: runs nothing
	}
	var inner int
	var script *Word
	var otherDir, ok bool
	if spec.Peel != nil {
		inner, script, otherDir, ok = spec.Peel(args)
	}
	if name == "xargs" {
		w.xargs(c, args, sc)
		// xargs appending its input as operands runs its command and nothing else: allowed
		// when that command is (with the input's words as unknown operands).
		if _, replace, ok := XargsReplace(args); ok && replace == "" && len(c.Issues) == 0 {
			c.Transparent = trusted
		}
		return
	}
	if !ok {
		c.Issues = append(c.Issues, "cannot tell which command "+name+" runs")
		w.speculate(c, name, args, sc)
		return
	}
	if script != nil {
		if !script.Known || script.Placeholder {
			c.Issues = append(c.Issues, name+" runs a script that is not a literal string")
			return
		}
		csc := sc
		csc.otherDir = sc.otherDir || otherDir
		if !w.script(c, script.Value, name, csc, false, false) {
			c.Issues = append(c.Issues, name+" runs a script that does not parse")
		}
		return
	}
	if inner >= len(args) {
		return // nothing to run (sudo -l, nohup alone)
	}
	child := w.child(c, args[inner:], name, sc)
	child.OtherDir = child.OtherDir || otherDir
	c.Transparent = spec.Safe && trusted
	w.unwrap(child, sc)
}

func (w *walker) child(parent *Command, argv []Word, via string, sc scope) *Command {
	child := w.alloc()
	*child = Command{Kind: KindCall, Argv: argv, Words: argv, Parent: parent, Via: via,
		Speculative: parent.Speculative, Nested: parent.Nested, OtherDir: parent.OtherDir, Where: parent.Where}
	srcs := make([]string, len(argv))
	for i, a := range argv {
		srcs[i] = a.Src
	}
	child.Text = strings.Join(srcs, " ")
	w.add(child)
	return child
}

func (w *walker) speculate(c *Command, name string, args []Word, sc scope) {
	n := 0
	for i, a := range args {
		if !a.Known || strings.HasPrefix(a.Value, "-") || strings.ContainsRune(a.Value, '=') {
			continue
		}
		if n++; n > 16 {
			break
		}
		child := w.child(c, args[i:], name+" (guessed)", sc)
		child.Speculative = true
		if !w.enter() {
			return
		}
		w.unwrap(child, sc)
		w.leave()
	}
}

func (w *walker) xargs(c *Command, args []Word, sc scope) {
	inner, replace, ok := XargsReplace(args)
	if !ok {
		c.Issues = append(c.Issues, "cannot tell which command xargs runs")
		w.speculate(c, "xargs", args, sc)
		return
	}
	argv := []Word{{Src: "echo", Value: "echo", Known: true}} // xargs runs echo by default
	if inner < len(args) {
		argv = args[inner:]
	}
	if replace != "" {
		argv = placeholders(argv, replace)
	}
	child := w.child(c, argv, "xargs", sc)
	child.ExtraArgs = replace == ""
	w.unwrap(child, sc)
}

// placeholders marks the words that hold a run-time file name (find's {}, xargs -I's string).
func placeholders(argv []Word, marker string) []Word {
	out := make([]Word, len(argv))
	for i, a := range argv {
		out[i] = a
		if a.Known && strings.Contains(a.Value, marker) {
			out[i].Placeholder = true
		}
	}
	return out
}

// clusteredC finds -c inside a cluster of short options (script -qc cmd, su -lc cmd, script
// -qccmd): the command is the next word, or the rest of the cluster when attached.
func clusteredC(v string) (rest string, attached, ok bool) {
	if len(v) < 3 || v[0] != '-' || v[1] == '-' {
		return "", false, false
	}
	i := strings.IndexByte(v, 'c')
	if i < 0 {
		return "", false, false
	}
	return v[i+1:], i+1 < len(v), true
}
