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

// WrapperSpec describes a command that runs another command given as its arguments.
type WrapperSpec struct {
	// Safe wrappers are stripped for allow matching: the command they run is what is allowed.
	Safe bool
	// Peel finds where the wrapped command starts in args. It returns a script to parse
	// instead when the wrapper runs its arguments through a shell, and ok=false when it does
	// not understand the options.
	Peel func(args []Word) (inner int, script *Word, otherDir, ok bool)
}

// Wrappers are the commands that run another command given as their arguments, by name. The
// map is the walk's own: callers read it.
func Wrappers() map[string]WrapperSpec { return wrappers }

// wrappers are the commands that run another command given as their arguments. A nil peel
// means the options are too many to follow: the wrapped command is guessed.
var wrappers = map[string]WrapperSpec{
	"timeout": {Safe: true, Peel: peelTimeout},
	"time":    {Safe: true, Peel: flagsPeel("p", "", nil, nil)},
	"nice":    {Safe: true, Peel: peelNice},
	"stdbuf":  {Safe: true, Peel: peelStdbuf},
	"nohup":   {Safe: true, Peel: flagsPeel("", "", nil, nil)},
	"command": {Safe: true, Peel: flagsPeel("p", "", nil, nil)},
	"builtin": {Safe: true, Peel: flagsPeel("", "", nil, nil)},
	"noglob":  {Safe: true, Peel: flagsPeel("", "", nil, nil)},
	"env":     {Peel: peelEnv},
	"sudo": {Peel: flagsPeel("AbEHiKklnPSsVvBN", "ughpCDrtUTR",
		[]string{"askpass", "background", "preserve-env", "set-home", "login", "non-interactive", "stdin", "shell", "reset-timestamp", "remove-timestamp", "bell"},
		[]string{"user", "group", "host", "prompt", "close-from", "chdir", "role", "type", "other-user", "command-timeout", "chroot"})},
	"doas":             {Peel: flagsPeel("nsL", "uC", nil, nil)},
	"pkexec":           {Peel: flagsPeel("", "", []string{"disable-internal-agent", "keep-cwd"}, []string{"user"})},
	"watch":            {Peel: peelWatch},
	"ionice":           {Peel: flagsPeel("tu", "cnP", []string{"ignore"}, []string{"class", "classdata"})},
	"setsid":           {Peel: flagsPeel("cfw", "", []string{"ctty", "fork", "wait"}, nil)},
	"exec":             {Peel: flagsPeel("cl", "a", nil, nil)},
	"unbuffer":         {Peel: flagsPeel("p", "", nil, nil)},
	"caffeinate":       {Peel: flagsPeel("dimsu", "tw", nil, nil)},
	"chrt":             {Peel: peelChrt},
	"taskset":          {Peel: peelTaskset},
	"flock":            {Peel: peelFlock},
	"chroot":           {Peel: peelChroot},
	"su":               {Peel: peelSu},
	"runuser":          {Peel: peelRunuser},
	"script":           {Peel: peelScript},
	"busybox":          {Peel: flagsPeel("", "", nil, nil)},
	"xargs":            {Peel: peelXargs},
	"strace":           {Peel: nil},
	"ltrace":           {Peel: nil},
	"fakeroot":         {Peel: nil},
	"torsocks":         {Peel: nil},
	"proxychains":      {Peel: nil},
	"proxychains4":     {Peel: nil},
	"firejail":         {Peel: nil},
	"nsenter":          {Peel: nil},
	"unshare":          {Peel: nil},
	"systemd-run":      {Peel: nil},
	"xvfb-run":         {Peel: nil},
	"dbus-run-session": {Peel: nil},
	"valgrind":         {Peel: nil},
	"parallel":         {Peel: nil},
	"sg":               {Peel: nil},
	"with-contenv":     {Peel: nil},
}

// flagsPeel peels a wrapper with the given boolean and value-taking short options and long
// options; the wrapped command starts at the first operand.
func flagsPeel(boolShort, valueShort string, boolLong, valueLong []string) func([]Word) (int, *Word, bool, bool) {
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

var durationRE = LazyRE(`^[0-9]+(\.[0-9]+)?[smhd]?$`)

func peelTimeout(args []Word) (int, *Word, bool, bool) {
	i, ok := skipOptions(args, "v", "sk", []string{"preserve-status", "foreground", "verbose"}, []string{"signal", "kill-after"})
	if !ok || i >= len(args) || !args[i].Known || !durationRE().MatchString(args[i].Value) {
		return i, nil, false, false
	}
	i++
	if i < len(args) && args[i].Known && args[i].Value == "--" {
		i++
	}
	return i, nil, false, true
}

var niceNumRE = LazyRE(`^-[0-9]+$`)

func peelNice(args []Word) (int, *Word, bool, bool) {
	i := 0
	for i < len(args) && args[i].Known {
		v := args[i].Value
		switch {
		case v == "--":
			return i + 1, nil, false, true
		case v == "-n":
			i += 2
		case niceNumRE().MatchString(v), strings.HasPrefix(v, "-n") && len(v) > 2, strings.HasPrefix(v, "--adjustment="):
			i++
		case strings.HasPrefix(v, "-"):
			return i, nil, false, false
		default:
			return i, nil, false, true
		}
	}
	return i, nil, false, i <= len(args)
}

var stdbufRE = LazyRE(`^(-[ioe]\S+|--(input|output|error)=\S+)$`)

func peelStdbuf(args []Word) (int, *Word, bool, bool) {
	i := 0
	for i < len(args) && args[i].Known && stdbufRE().MatchString(args[i].Value) {
		i++
	}
	if i < len(args) && args[i].Known && args[i].Value == "--" {
		return i + 1, nil, false, true
	}
	if i < len(args) && args[i].Known && strings.HasPrefix(args[i].Value, "-") {
		return i, nil, false, false
	}
	return i, nil, false, true
}

var EnvAssignRE = LazyRE(`^[A-Za-z_][A-Za-z0-9_]*=`)

func peelEnv(args []Word) (int, *Word, bool, bool) {
	i := 0
	otherDir := false
	for i < len(args) {
		a := args[i]
		if !a.Known {
			return i, nil, otherDir, false
		}
		v := a.Value
		switch {
		case v == "--":
			i++
		case v == "-" || v == "-i" || v == "-0" || v == "-v" || v == "--null" || v == "--ignore-environment" || v == "--debug":
			i++
			continue
		case v == "-u" || v == "--unset":
			i += 2
			continue
		case strings.HasPrefix(v, "--unset=") || (strings.HasPrefix(v, "-u") && len(v) > 2):
			i++
			continue
		case v == "-C" || v == "--chdir":
			otherDir = true
			i += 2
			continue
		case strings.HasPrefix(v, "--chdir=") || (strings.HasPrefix(v, "-C") && len(v) > 2):
			otherDir = true
			i++
			continue
		case v == "-S" || v == "--split-string":
			if i+1 < len(args) {
				return i + 1, &args[i+1], otherDir, true
			}
			return i, nil, otherDir, false
		case strings.HasPrefix(v, "-S") || strings.HasPrefix(v, "--split-string="):
			s := args[i]
			if strings.HasPrefix(v, "-S") {
				s.Value = v[2:]
			} else {
				s.Value = strings.TrimPrefix(v, "--split-string=")
			}
			return i + 1, &s, otherDir, true
		case strings.HasPrefix(v, "-") && len(v) > 1:
			return i, nil, otherDir, false
		}
		break
	}
	for i < len(args) && args[i].Known && EnvAssignRE().MatchString(args[i].Value) {
		i++
	}
	return i, nil, otherDir, true
}

func peelWatch(args []Word) (int, *Word, bool, bool) {
	i := 0
	exec := false
	for i < len(args) && args[i].Known {
		v := args[i].Value
		switch {
		case v == "--":
			i++
		case v == "-n" || v == "--interval" || v == "-q" || v == "--equexit":
			i += 2
			continue
		case v == "-x" || v == "--exec":
			exec = true
			i++
			continue
		case strings.HasPrefix(v, "--interval=") || strings.HasPrefix(v, "--differences") || strings.HasPrefix(v, "-n"):
			i++
			continue
		case strings.HasPrefix(v, "--") && slices.Contains([]string{"--no-title", "--beep", "--errexit", "--chgexit", "--color", "--no-color", "--precise", "--no-wrap", "--no-linewrap"}, v):
			i++
			continue
		case strings.HasPrefix(v, "-") && len(v) > 1 && strings.Trim(v[1:], "dtbegcpwr") == "":
			i++
			continue
		case strings.HasPrefix(v, "-") && len(v) > 1:
			return i, nil, false, false
		}
		break
	}
	if exec || i >= len(args) {
		return i, nil, false, true
	}
	// Without -x, watch joins its arguments and runs them with sh -c.
	joined := Word{Known: true}
	var vals []string
	for _, a := range args[i:] {
		if !a.Known {
			return i, nil, false, false
		}
		vals = append(vals, a.Value)
	}
	joined.Value = strings.Join(vals, " ")
	return len(args), &joined, false, true
}

func peelChrt(args []Word) (int, *Word, bool, bool) {
	i, ok := skipOptions(args, "abdfiomRrv", "TPD", []string{"all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr", "reset-on-fork", "verbose", "max"}, []string{"sched-runtime", "sched-period", "sched-deadline"})
	if !ok || i >= len(args) {
		return i, nil, false, false
	}
	return i + 1, nil, false, true // the priority
}

func peelTaskset(args []Word) (int, *Word, bool, bool) {
	i, ok := skipOptions(args, "ac", "", []string{"all-tasks", "cpu-list"}, nil)
	if !ok || i >= len(args) {
		return i, nil, false, false
	}
	return i + 1, nil, false, true // the mask or list
}

func peelFlock(args []Word) (int, *Word, bool, bool) {
	i := 0
	for i < len(args) && args[i].Known {
		v := args[i].Value
		switch {
		case v == "-c" || v == "--command":
			// flock [options] file -c command: handled after the file below.
		case v == "-w" || v == "--timeout" || v == "-E" || v == "--conflict-exit-code":
			i += 2
			continue
		case strings.HasPrefix(v, "-") && len(v) > 1 && strings.Trim(v[1:], "sxunoFv") == "":
			i++
			continue
		case strings.HasPrefix(v, "--"):
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return i, nil, false, false
	}
	i++ // the lock file or descriptor
	if i+1 < len(args) && args[i].Known && (args[i].Value == "-c" || args[i].Value == "--command") {
		return len(args), &args[i+1], false, true
	}
	return i, nil, false, true
}

func peelChroot(args []Word) (int, *Word, bool, bool) {
	i, ok := skipOptions(args, "", "", []string{"skip-chdir"}, []string{"userspec", "groups"})
	if !ok || i >= len(args) {
		return i, nil, true, false
	}
	return i + 1, nil, true, true
}

// peelSu finds su's -c command; without one su starts a shell and runs nothing given here.
func peelSu(args []Word) (int, *Word, bool, bool) {
	for i, a := range args {
		if !a.Known {
			return i, nil, false, false
		}
		if (a.Value == "-c" || a.Value == "--command") && i+1 < len(args) {
			return len(args), &args[i+1], false, true
		}
		if v, ok := strings.CutPrefix(a.Value, "--command="); ok {
			s := a
			s.Value = v
			return len(args), &s, false, true
		}
		if rest, attached, ok := clusteredC(a.Value); ok && (attached || i+1 < len(args)) {
			s := args[min(i+1, len(args)-1)]
			if attached {
				s, s.Value = a, rest
			}
			return len(args), &s, false, true
		}
	}
	return len(args), nil, false, true
}

// peelRunuser reads runuser: with -u USER (--user) it runs the command after its options
// (runuser -u nobody -- make); otherwise it is su, whose -c is a command line.
func peelRunuser(args []Word) (int, *Word, bool, bool) {
	user := false
	for _, a := range args {
		if a.Known && (a.Value == "-u" || strings.HasPrefix(a.Value, "--user") || (strings.HasPrefix(a.Value, "-u") && !strings.HasPrefix(a.Value, "--"))) {
			user = true
		}
	}
	if !user {
		return peelSu(args)
	}
	if i, s, _, ok := peelSu(args); ok && s != nil {
		return i, s, false, true
	}
	i, ok := skipOptions(args, "fmpPlh", "ugGswc", []string{"fast", "preserve-environment", "pty", "login", "help"},
		[]string{"user", "group", "supp-group", "shell", "whitelist-environment", "command", "session-command"})
	return i, nil, false, ok
}

func peelScript(args []Word) (int, *Word, bool, bool) {
	return peelSu(args)
}

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

func peelXargs(args []Word) (int, *Word, bool, bool) {
	i, _, ok := XargsReplace(args)
	return i, nil, false, ok
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
		if _, ok := wrappers[name]; ok {
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
	spec := wrappers[name]
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
	if name == "sudo" {
		for _, a := range args[:min(inner, len(args))] {
			if a.Value == "-D" || strings.HasPrefix(a.Value, "--chdir") {
				otherDir = true
			}
		}
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
