package bashrules

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// The effects stage: what a command does besides being itself. Reads and writes are checked
// by the path stage (pathcheck.go) with the engine's Read and Edit checks; this file adds the
// effects no allow rule covers — options that run programs, names the analysis cannot see,
// environment that changes which program runs — so that Bash(find:*) allows find, not
// find -delete, and bypass mode never allows a command whose name a deny rule might cover.

// stageEffects returns the worst verdict of a command's effects that an allow rule cannot
// settle. Where the analysis cannot see a command name or what an option runs and any Bash
// deny or ask rule exists, the answer is a safety ask (step 1g): bypass mode and a tool-wide
// Bash allow do not turn it into allow.
func (k *checker) stageEffects(c *Command) result {
	worst := allowed
	if c.Kind == KindDecl && len(c.Argv) > 0 {
		if why := shellMeaningWhy(c.Argv[0].Value, c.Argv[1:]); why != "" {
			worst = worse(worst, k.verdicts.unseen(why))
		}
	}
	if c.Kind == KindAssign || c.Kind == KindDecl {
		for _, a := range c.Assigns {
			if gitConfigEnv(a.Name) {
				worst = worse(worst, k.verdicts.execAsk(c, "it sets "+a.Name+", which gives git configuration that can run programs, as git -c does"))
			} else if why := dangerousEnv(a.Name); why != "" {
				worst = worse(worst, k.verdicts.hidden(c, "it sets "+a.Name+", which "+why))
			}
		}
		return worst
	}
	if c.Kind != KindCall || len(c.Argv) == 0 {
		return worst
	}
	for _, a := range c.Assigns {
		if gitConfigEnv(a.Name) {
			worst = worse(worst, k.verdicts.execAsk(c, "it runs with "+a.Name+" set, which gives git configuration that can run programs, as git -c does"))
		} else if why := dangerousEnv(a.Name); why != "" {
			worst = worse(worst, k.verdicts.hidden(c, "it runs with "+a.Name+" set, which "+why))
		} else if why := programEnv(c.Argv[0], a.Name); why != "" {
			worst = worse(worst, k.verdicts.hidden(c, "it runs with "+a.Name+" set, which "+why))
		}
	}
	w0 := c.Argv[0]
	switch {
	case !w0.Known || w0.Placeholder:
		if k.idx.denyAsk {
			worst = worse(worst, k.verdicts.hidden(c, "its name ("+w0.Src+") is only known when it runs"))
		}
	case w0.Glob:
		if r, ok := k.rules.globName(c); ok {
			return r
		}
		worst = worse(worst, k.verdicts.hidden(c, "its name ("+w0.Src+") is a pattern the shell expands"))
	}
	name, _ := commandName(w0)
	args := c.Argv[1:]
	k.rec.networkEffect(c, name)
	if why := nameChanger(name, args); why != "" {
		worst = worse(worst, k.verdicts.hidden(c, why))
	}
	if why := shellMeaningWhy(name, args); why != "" {
		worst = worse(worst, k.verdicts.unseen(why))
	}
	if why := envArgs(name, args); why != "" {
		worst = worse(worst, k.verdicts.hidden(c, why))
	}
	if k.idx.denyAsk {
		if why := nameVariant(name); why != "" {
			worst = worse(worst, k.verdicts.hidden(c, why))
		}
	}
	if why := scriptFile(name, args); why != "" && k.idx.denyAsk {
		// Without deny or ask rules a script file is a command like any other: a rule for
		// the shell allows it (docs/security.md, known limits).
		worst = worse(worst, k.verdicts.hidden(c, why))
	}
	if why := execOption(name, args); why != "" {
		worst = worse(worst, k.verdicts.execAsk(c, why))
	}
	if name == "git" {
		if why := gitElsewhere(k.paths.ctx, k.pc.Cwd(), k.pc.OriginalCwd(), args); why != "" {
			worst = worse(worst, k.verdicts.hidden(c, why))
		}
	}
	worst = worse(worst, k.stageOpaque(c))
	if roles().hazard[name] || execOptionCommands()[name] {
		if why := k.paths.globOption(c); why != "" {
			worst = worse(worst, k.verdicts.execAsk(c, why))
		}
	} else if name != "echo" && name != "printf" {
		// Any other program reads a name that starts with "-" as an option too, one whose
		// effect the analysis has not judged (issue 39): it asks, naming the file, and with
		// a Bash deny or ask rule in force it is a safety ask.
		if why := k.paths.globOption(c); why != "" {
			worst = worse(worst, k.verdicts.unseen(why))
		}
	}
	return worst
}

// execOptionCommands are the commands execOption knows options of: those whose
// knowledge-base entries name an option that runs code or a program, and those whose entries
// say execOption reads them by value (role execvalues). Built at first use: the knowledge base
// is not read when reins starts for a command that never decides a Bash call.
var execOptionCommands = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for n, ok := range roles().execValues {
		out[n] = ok
	}
	for n := range kbExecCommands() {
		out[n] = true
	}
	return out
})

// globName resolves a command name given as a pattern (/usr/bin/r[m]) against the file system
// and matches deny and ask rules against every program it could name.
func (rl *ruleMatch) globName(c *Command) (result, bool) {
	w0 := c.Argv[0]
	if !strings.HasPrefix(w0.Value, "/") {
		return result{}, false
	}
	matches, err := boundedGlob(w0.Value, globBudget)
	if err != nil {
		return result{}, false
	}
	for _, m := range matches {
		argv := append([]Word{{Src: path.Base(m), Value: path.Base(m), Known: true}}, c.Argv[1:]...)
		cands := []string{joinValues(argv, false), joinValues(argv, true)}
		if r := rl.idx.deny.match(cands, true); r != nil {
			return rl.verdicts.ruleResult(vDeny, r, c.Text+" (the pattern names "+m+")"), true
		}
		if r := rl.idx.ask.match(cands, true); r != nil {
			return rl.verdicts.ruleResult(vAskRule, r, c.Text+" (the pattern names "+m+")"), true
		}
	}
	return result{}, false
}

// dangerousEnv says why setting a variable changes which program runs or what it loads.
func dangerousEnv(name string) string {
	switch {
	case name == "":
		return ""
	case name == "PATH" || name == "CDPATH" || name == "IFS" || name == "GLOBIGNORE":
		return "changes which program a name runs"
	case name == "BASH_ENV" || name == "ENV" || name == "SHELLOPTS" || name == "BASHOPTS" || name == "PROMPT_COMMAND" || name == "PS4" || name == "ZDOTDIR":
		return "makes the shell run code"
	case strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_"):
		return "loads code into every program"
	case strings.HasPrefix(name, "GIT_"):
		return "changes what git runs and where"
	case strings.HasSuffix(name, "PAGER") || name == "EDITOR" || name == "VISUAL" || name == "BROWSER" || name == "LESSOPEN" || name == "LESSCLOSE" || strings.HasSuffix(name, "ASKPASS") || name == "MANOPT":
		return "names a program that commands run"
	case name == "MANROFFOPT" || name == "MANPATH" || strings.HasPrefix(name, "GROFF_"):
		return "changes which pages man formats, and what groff runs and reads"
	case name == "NODE_OPTIONS" || name == "PYTHONSTARTUP" || name == "PYTHONPATH" || name == "PYTHONHOME" || strings.HasPrefix(name, "PERL5") || name == "PERLLIB" ||
		name == "RUBYOPT" || name == "RUBYLIB" || name == "JAVA_TOOL_OPTIONS" || name == "_JAVA_OPTIONS" || name == "XDG_CONFIG_HOME" || name == "HOME":
		return "makes an interpreter or tool load other code"
	case interpreterLoadEnv[name] || strings.HasPrefix(name, "LUA_INIT") || strings.HasPrefix(name, "LUA_PATH") || strings.HasPrefix(name, "LUA_CPATH") ||
		strings.HasPrefix(name, "R_PROFILE") || strings.HasPrefix(name, "R_ENVIRON") || strings.HasPrefix(name, "TS_NODE_"):
		// Issue 39: each of these makes an interpreter import a module, read a start-up or
		// configuration file, or read its standard input as code.
		return "makes an interpreter or tool load other code"
	}
	return ""
}

// gitConfigEnv reports the variables that are git -c by another name (GIT_CONFIG_COUNT with
// GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n, GIT_CONFIG_PARAMETERS), or point git at another
// configuration file (GIT_CONFIG, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM) or program directory
// (GIT_EXEC_PATH): like git -c core.fsmonitor=x they are an exec-family ask that no allow
// rule or mode covers.
func gitConfigEnv(name string) bool {
	return strings.HasPrefix(name, "GIT_CONFIG") || name == "GIT_EXEC_PATH"
}

// interpreterLoadEnv are variables that make an interpreter run code the command line does
// not show: python's warning categories (imported), breakpoint hook, interactive mode after
// the program and user site-packages (whose .pth files run); node's module path; php's ini
// files (auto_prepend_file); Erlang's and Elixir's extra flags (-eval); Guile's, Tcl's and
// Julia's load paths; irb's start-up file; glibc's iconv modules.
var interpreterLoadEnv = map[string]bool{"PYTHONWARNINGS": true, "PYTHONBREAKPOINT": true, "PYTHONINSPECT": true,
	"PYTHONUSERBASE": true, "PYTHONPLATLIBDIR": true, "NODE_PATH": true, "PHPRC": true, "PHP_INI_SCAN_DIR": true,
	"ERL_FLAGS": true, "ERL_AFLAGS": true, "ERL_ZFLAGS": true, "ELIXIR_ERL_OPTIONS": true, "GUILE_LOAD_PATH": true,
	"TCLLIBPATH": true, "JULIA_LOAD_PATH": true, "JULIA_DEPOT_PATH": true, "IRBRC": true, "GCONV_PATH": true}

// nameChanger says why a builtin changes what later command names mean: aliases, hash -p,
// enable.
func nameChanger(name string, args []Word) string {
	switch name {
	case "alias":
		for _, a := range args {
			if !a.Known || strings.Contains(a.Value, "=") {
				return "alias defines a command name"
			}
		}
	case "hash":
		for _, a := range args {
			if !a.Known || (strings.HasPrefix(a.Value, "-") && strings.ContainsRune(a.Value, 'p')) {
				return "hash -p binds a command name to another program"
			}
		}
	case "enable":
		for _, a := range args {
			if !a.Known || (a.Value != "-a" && a.Value != "-p" && a.Value != "-s") {
				return "enable turns builtins on or off or loads new ones"
			}
		}
	case "shopt":
		for _, a := range args {
			if a.Known && a.Value == "expand_aliases" {
				return "shopt expand_aliases makes aliases apply"
			}
		}
	}
	return ""
}

// envArgs says why env's NAME=value arguments change which program runs (env PATH=/tmp ls) or
// what the program it runs runs (env CC=x make, by make's knowledge-base entry).
func envArgs(name string, args []Word) string {
	if name != "env" {
		return ""
	}
	var names []string
	for i, a := range args {
		if !a.Known {
			continue
		}
		n, _, ok := strings.Cut(a.Value, "=")
		if !ok || strings.HasPrefix(a.Value, "-") {
			if !strings.HasPrefix(a.Value, "-") {
				for _, n := range names {
					if why := programEnv(args[i], n); why != "" {
						return "env sets " + n + ", which " + why
					}
				}
				break // the command
			}
			continue
		}
		if why := dangerousEnv(n); why != "" {
			return "env sets " + n + ", which " + why
		}
		names = append(names, n)
	}
	return ""
}

// nameVariant says which known program a command name may start where the file system
// ignores case (macOS, Windows) or Windows adds .exe: RM, Rm.exe and rm.EXE run rm there,
// and deny rules name rm. On Linux such a name is another program, or none; either way the
// analysis cannot say it is not the denied one.
func nameVariant(name string) string {
	canon := strings.ToLower(name)
	canon = strings.TrimSuffix(canon, ".exe")
	if canon == name || canon == "" {
		return ""
	}
	if _, ok := knowledge.Facts(name); ok {
		return ""
	}
	if _, ok := knowledge.Facts(canon); !ok {
		return ""
	}
	return "its name " + name + " runs " + canon + " where file names ignore case or take .exe (macOS, Windows)"
}

// scriptFile says why a command runs commands from a file the analysis does not read: source,
// ., and a shell given a script file.
func scriptFile(name string, args []Word) string {
	switch {
	case name == "source" || name == ".":
		if len(args) > 0 {
			return name + " runs the commands of a file the analysis does not read"
		}
	case isShell(name):
		noRun := roles().shellNoRun[name]
		for _, a := range args {
			if !a.Known {
				// A script named by an expansion (bash <(curl ...), bash "$F"): its commands
				// are only known when it runs.
				return name + " runs a script only known when it runs (" + a.Src + ")"
			}
			v := a.Value
			if v == "--" {
				continue
			}
			if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
				if !strings.HasPrefix(v, "--") && strings.ContainsRune(v, 'c') {
					return "" // -c: the script is an argument, analysed as such
				}
				if v[0] == '-' && !strings.HasPrefix(v, "--") && noRun != "" && strings.ContainsAny(v[1:], noRun) {
					return "" // bash -n: the script is read, not run
				}
				continue
			}
			return name + " runs the script file " + a.Src + ", which the analysis does not read"
		}
	}
	return ""
}

// longPrefix reports whether the long option v (with or without "=value") is a prefix of the
// long option full, the way GNU getopt and git accept any unambiguous abbreviation. An
// ambiguous abbreviation makes the program fail, so treating it as the dangerous option only
// asks where nothing would have run.
func longPrefix(v, full string) bool {
	name, _, _ := strings.Cut(v, "=")
	return len(name) > 3 && strings.HasPrefix(name, "--") && strings.HasPrefix(full, name)
}

func anyWord(args []Word, words ...string) string {
	for _, a := range args {
		if a.Known && contains(words, a.Value) {
			return a.Value
		}
	}
	return ""
}

// execOption says which option of a command runs another program or writes where the
// analysis does not follow (the exec family): an allow rule for the command never covers it.
// What an option does is knowledge-base data (kbExecOption); what remains here are the cases
// that depend on a value or an operand rather than on an option: git's settings and
// subcommand words, a command in vim's +cmd or less's +!cmd, ssh -o ProxyCommand=, the text
// of an awk program, tar's old-style first word, and the programs that take commands as
// operands (tmux, screen, crontab, at).
func execOption(name string, args []Word) string {
	if name == "git" {
		return gitExecOption(args)
	}
	if !execOptionCommands()[name] {
		return ""
	}
	if why := kbExecOption(name, args); why != "" {
		return why
	}
	switch name {
	case "crontab", "at", "batch":
		if name != "crontab" || anyWord(args, "-l") == "" || len(args) > 1 {
			return name + " installs commands that run later"
		}
	case "tmux", "screen":
		for _, a := range args {
			if a.Known && contains([]string{"send-keys", "send", "new-session", "new", "new-window", "neww", "split-window", "splitw",
				"run-shell", "run", "respawn-pane", "respawn-window", "-X", "pipe-pane", "source-file", "source", "if-shell", "if"}, a.Value) {
				return name + " " + a.Value + " runs commands in another shell"
			}
		}
	case "tar", "gtar", "bsdtar":
		if len(args) > 0 && args[0].Known && !strings.HasPrefix(args[0].Value, "-") && strings.ContainsAny(args[0].Value, "IF") {
			return "tar " + args[0].Value + " runs a program"
		}
	case "ssh", "scp", "sftp":
		return sshCommandArg(name, args)
	case "awk", "gawk", "mawk", "nawk":
		return awkWhy(args)
	case "less", "more", "most":
		for _, a := range args {
			if a.Known && strings.HasPrefix(a.Value, "+") && strings.ContainsAny(a.Value, "!|") {
				return name + " " + a.Value + " runs a shell command"
			}
		}
	}
	return ""
}

// sshCommandArg finds an ssh -o setting that runs a local command (ProxyCommand,
// LocalCommand, ...).
func sshCommandArg(name string, args []Word) string {
	for i, a := range args {
		if !a.Known {
			continue
		}
		if a.Value == "-o" && i+1 < len(args) && (!args[i+1].Known || sshCommandOption(args[i+1].Value)) {
			return name + " -o " + args[i+1].Src + " runs a local command"
		}
		if strings.HasPrefix(a.Value, "-o") && len(a.Value) > 2 && sshCommandOption(a.Value[2:]) {
			return name + " " + a.Value + " runs a local command"
		}
	}
	return ""
}

// gitExecOption finds git's global and subcommand options that run programs: -c settings,
// --exec-path, --upload-pack, --receive-pack, --exec, external diff and text conversion
// drivers, and pagers (abbreviations included, as git accepts them).
func gitExecOption(args []Word) string {
	for i, a := range args {
		if !a.Known {
			continue
		}
		v := a.Value
		if v == "--" {
			return ""
		}
		switch {
		case v == "-c" || (strings.HasPrefix(v, "-c") && !strings.HasPrefix(v, "--") && len(v) > 2 && strings.Contains(v, "=")):
			return "git -c sets configuration that can run programs"
		case longPrefix(v, "--config-env"), longPrefix(v, "--exec-path") && strings.Contains(v, "="):
			return "git " + v + " changes what git runs"
		case longPrefix(v, "--upload-pack"), longPrefix(v, "--receive-pack"), v == "--exec" || strings.HasPrefix(v, "--exec="),
			longPrefix(v, "--ext-diff"), longPrefix(v, "--open-files-in-pager"), longPrefix(v, "--textconv") && !strings.HasPrefix(v, "--no"):
			return "git " + v + " runs a program"
		case v == "-O" || (strings.HasPrefix(v, "-O") && !strings.HasPrefix(v, "--")):
			if gitSubcommand(args[:i]) == "grep" {
				return "git grep -O runs a pager program"
			}
		case v == "-u":
			if gitSubcommand(args[:i]) == "ls-remote" {
				return "git ls-remote -u runs an upload-pack program"
			}
		case v == "-x" || (strings.HasPrefix(v, "-x") && !strings.HasPrefix(v, "--")):
			if sub := gitSubcommand(args[:i]); sub == "rebase" || sub == "difftool" {
				return "git " + sub + " -x runs a command"
			}
		case longPrefix(v, "--extcmd"), longPrefix(v, "--tree-filter"), longPrefix(v, "--index-filter"), longPrefix(v, "--msg-filter"),
			longPrefix(v, "--env-filter"), longPrefix(v, "--commit-filter"), longPrefix(v, "--parent-filter"), longPrefix(v, "--tag-name-filter"):
			return "git " + v + " runs a command"
		case !strings.HasPrefix(v, "-") && i > 0:
			sub := gitSubcommand(args[:i])
			if (sub == "bisect" && v == "run") || (sub == "submodule" && v == "foreach") {
				return "git " + sub + " " + v + " runs a command"
			}
		}
	}
	return ""
}

// gitSubcommand returns the first word before i that is not an option (or option value).
func gitSubcommand(args []Word) string {
	_, sub, _, _ := gitGlobal(args)
	return sub
}

// quietExpansions reports whether a command's only unknown words are parameter expansions in
// the arguments of a command that neither takes paths nor runs anything with them: echo, and
// printf without -v. Its output is data; redirections are checked on their own.
func quietExpansions(c *Command, name string, trusted bool) bool {
	if c.Kind != KindCall || len(c.Argv) < 2 || !trusted || !c.Argv[0].Known || c.ExtraArgs {
		return false
	}
	switch name {
	case "echo":
	case "printf":
		if a := c.Argv[1]; !a.Known || strings.HasPrefix(a.Value, "-v") {
			return false
		}
	default:
		return false
	}
	for _, w := range c.Argv[1:] {
		if w.Known {
			continue
		}
		// Arithmetic on variables is an issue of its own (it may run commands hidden in a
		// value); what remains is a number.
		if w.Placeholder || !(strings.HasPrefix(w.Why, "parameter expansion") || strings.HasPrefix(w.Why, "arithmetic expansion")) {
			return false
		}
	}
	for _, a := range c.Assigns {
		if !a.Value.Known {
			return false
		}
	}
	return true
}

// readOnlyXargsChild reports a command xargs runs with extra arguments from its input, whose
// own words are all known and whose input comes from a command that lists paths below the
// working directories (git ls-files | xargs grep, find . -name x | xargs wc -l): it reads
// those files and nothing else. Fed by anything else (echo ~/.ssh/id_rsa | xargs cat) its
// operands could be any file, so it is not quiet.
func readOnlyXargsChild(m *memo, c *Command) bool {
	if !c.ExtraArgs || c.Parent == nil || c.Argv == nil || len(c.Issues) > 0 || c.Parent.PipedFrom == nil {
		return false
	}
	for _, w := range c.Argv {
		if !w.Known || w.Placeholder {
			return false
		}
	}
	name, _ := commandName(c.Argv[0])
	if !xargsChildren()[name] {
		return false
	}
	prod := c.Parent.PipedFrom
	if r, ok := m.result(prod); !ok || r.v != vAllow {
		return false // the producer itself is not allowed without a rule
	}
	return printsNames(prod)
}

// printsNames reports whether a command's output is file names, as its entry says: role
// printsnames (find, ls; with subcommands named, when it runs one: git ls-files), or an option
// marked printsnames given as a word of its own (grep -l, git diff --name-only).
func printsNames(c *Command) bool {
	name, _ := c.Name()
	e, ok := knowledge.Lookup(name)
	if !ok {
		return false
	}
	subs, role := e.Role(knowledge.RolePrintsNames)
	if role && len(subs) == 0 {
		return true
	}
	var buf [8]knowledge.Arg
	args := kbArgs(c.Argv[1:], buf[:])
	p := e.Parse(args)
	if role && p.Sub != nil && slices.ContainsFunc(p.Sub.Names, func(n string) bool { return slices.Contains(subs, n) }) {
		return true
	}
	for _, u := range p.Uses {
		if u.Opt.PrintsNames && args[u.Word].Known && args[u.Word].Value == u.Spelling {
			return true
		}
	}
	return false
}

// xargsChildren are the read-only commands xargs may run with names it found: those in the
// set by their entry alone (no read-only code reads their arguments), whose entry is an option
// table none of whose options writes, runs code, connects or reads a list of files (so no name
// spelled like an option turns them: a file named -C makes file compile magic), whose operands
// the path checks know, and to whose operands more names add only reads (uniq's second operand
// is its output).
var xargsChildren = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	names := []Word{{Src: "a", Value: "a", Known: true}, {Src: "b", Value: "b", Known: true}}
	for name := range readOnlyCommands() {
		e, ok := knowledge.Lookup(name)
		if !ok || readOnlyCode(name) != nil || !harmlessOptions(e) {
			continue
		}
		f, ok := pathFuncOf(name)
		if !ok {
			continue // what its operands are is not known (true, sleep): nothing to give it
		}
		r := f(names)
		if len(r.issues) > 0 || slices.ContainsFunc(r.uses, func(u pathUse) bool { return u.acc != accRead && u.acc != accReadTree }) {
			continue
		}
		out[name] = true
	}
	return out
})

// harmlessOptions reports whether every option of an entry (and of its subcommands) at most
// reads the file its value names: none writes, runs code or a command, connects, changes the
// system or reads a list of more files.
func harmlessOptions(e *knowledge.Command) bool {
	for _, c := range append([]*knowledge.Command{e}, e.Subcommands()...) {
		for _, o := range c.Options {
			if o.Effects&^knowledge.Read != 0 || o.Code || o.Script {
				return false
			}
		}
	}
	return true
}
