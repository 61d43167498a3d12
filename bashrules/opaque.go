package bashrules

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/reinsdev/reins/bashrules/cmdline"
	"github.com/reinsdev/reins/bashrules/knowledge"
)

// Code the analysis cannot see: the inline programs of interpreters (python -c, node -e,
// perl -e, php -r, deno eval, a program on an interpreter's standard input), the command lines
// of tools that run their arguments as commands (hyperfine, concurrently, retry, entr, ssh
// host cmd, ...), the shell escapes and file functions of database clients (psql \! and COPY
// ... PROGRAM, sqlite3 .shell and .system, mysql system), and unknown programs whose
// arguments read as a command that a rule names.
//
// The contract: when a Bash deny or ask rule exists, a command carrying such code asks with
// ReasonSafetyCheck (bypass mode and allow rules do not turn it into allow) unless the
// analysis shows the code cannot run a command a rule names — only a literal command line
// that parses, whose every command is fully known and carries no code of its own, passes,
// and then its commands meet the rules as speculative children. When a Read deny or ask rule
// exists, code that can read any file (every interpreter's, a database client's file
// functions) asks the same way: the file it reads is not visible to the Read check.

// codeSpec says how an interpreter is given inline code.
type codeSpec struct {
	// short are the short options whose value is program text (python's c, perl's e and E).
	short string
	// stop are the short options that take a value of another kind: the rest of a cluster
	// after one of them is that value, not more options (python -mcompileall).
	stop string
	// long are the long options whose value is program text.
	long []string
	// sub are subcommands whose operands are program text (deno eval).
	sub []string
	// valueShort are the short options of stop whose value may be the next word (not perl
	// -i, whose optional value is attached or absent).
	valueShort string
	// noRun are the options after which no program text runs (--version, node --check),
	// noRunShort their short letters.
	noRun      []string
	noRunShort string
	// modules are the modules that, run with -m, run their arguments, their standard input
	// or another program as code (python -m timeit); nil when -m names no module.
	modules map[string]bool
	// documents: the operands are files edited, not a program (ed, vim).
	documents bool
}

// interpreterFor returns the inline-code spelling of an interpreter, from its knowledge-base
// entry, under any name the analysis knows it by (cmdline.Interpreter: python3.12 is python).
func interpreterFor(name string) (codeSpec, bool) {
	e, ok := cmdline.Interpreter(name)
	if !ok {
		return codeSpec{}, false
	}
	return roles().interp[e.Names[0]], true
}

// seesCode reports an interpreter whose program the analysis reads itself: one in the
// read-only set (awk, whose program the read-only and exec-family checks look into for
// system(), pipes and redirections, and which never reads its program from standard input).
func seesCode(name string) bool {
	e, ok := knowledge.Lookup(name)
	return ok && e.ReadOnly
}

// codeForm is what an interpreter's command runs that the analysis cannot see: why, and for
// code read from a program file or module the command names (python3 x.py, python3 -m
// pytest), that name. A form with no why runs no program text (--version, node --check).
type codeForm struct {
	why string
	// file is the program file or module the code is read from; "" for code the command
	// line itself carries (inline code, standard input, a device, a preload option).
	file string
}

// inlineCodeWhy says what program text an interpreter's command runs. The command line
// carries the code (file ""): code options (python -c, perl -M, node --require), a program
// read from standard input ("-", or no program file at all: a pipe, a redirection or a
// here-document feeds it), a program file that is a device or a pipe (/dev/stdin, /dev/fd/3)
// or a URL, a module that runs its arguments as code (python -m timeit). Or it reads the code
// from a program file or module it names (file set). Only the options the entry marks norun,
// given before the program, make it run none. Code options are looked for in every argument,
// the program file's own included: reading one of those as code only asks.
func inlineCodeWhy(c *Command, name string, spec codeSpec) codeForm {
	operand, info := false, false
	var program, next Word // the program and the word after it
	module := false
	args := c.Argv[1:]
	inline := func(format string, a ...any) codeForm { return codeForm{why: fmt.Sprintf(format, a...)} }
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			if operand {
				continue // an argument of the program
			}
			return inline("%s runs program text only known when it runs (%s)", name, a.Src)
		}
		v := a.Value
		switch {
		case operand:
			if next.Src == "" {
				next = a
			}
		case v == "--":
			if i+1 < len(args) && !spec.documents {
				i++
				if !args[i].Known {
					return inline("%s runs program text only known when it runs (%s)", name, args[i].Src)
				}
				program, operand = args[i], true
			}
			continue
		case v == "-":
			return inline("%s runs a program read from its standard input", name)
		case contains(spec.sub, v):
			return inline("%s %s runs inline code the analysis cannot see into", name, v)
		case contains(spec.noRun, v):
			info = true
			continue
		}
		for _, l := range spec.long {
			if v == l || strings.HasPrefix(v, l+"=") {
				return inline("%s %s runs inline code, or code it loads first, that the analysis cannot see into", name, l)
			}
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' {
			f, value, takes := clusterCode(v[1:], spec)
			switch {
			case f != 0 && strings.IndexByte(spec.short, f) >= 0:
				return inline("%s -%c runs inline code, or code it loads first, that the analysis cannot see into", name, f)
			case operand:
			case f == 'm' && spec.modules != nil:
				if value == "" && i+1 < len(args) {
					i++
					if !args[i].Known {
						return inline("%s -m runs a module only known when it runs (%s)", name, args[i].Src)
					}
					value = args[i].Value
				}
				if spec.modules[value] {
					return inline("%s -m %s runs its arguments, its standard input or another program as code", name, value)
				}
				program, operand, module = Word{Src: value, Value: value, Known: true}, true, true
			case f == 'W' && spec.modules != nil && warningImports(value, i, args):
				return inline("%s -W names a warning category in a module, which it imports", name)
			case f != 0 && strings.IndexByte(spec.noRunShort, f) >= 0:
				info = true
			case takes && value == "" && !strings.HasPrefix(v, "--"):
				i++ // the option's value is the next word
			}
		} else if !operand && !strings.HasPrefix(v, "-") {
			program, operand = a, true // the program file (or module): its code is read from there
		}
	}
	switch {
	case info:
		return codeForm{} // prints something and exits, or checks the syntax only
	case !operand || spec.documents:
		return codeForm{why: stdinProgram(name)}
	case module:
		return codeForm{why: fmt.Sprintf("%s -m %s runs the module %s, whose code the analysis does not read", name, program.Value, program.Value), file: program.Value}
	case deviceProgram(program.Value):
		return inline("%s runs its program from %s, a device or pipe whose content the analysis cannot see", name, program.Src)
	case urlProgram(program.Value):
		return inline("%s runs its program from %s, which the analysis cannot read", name, program.Src)
	case urlProgram(next.Value) && !strings.ContainsAny(program.Value, "./"):
		// A subcommand-like word and then a URL: deno run https://..., the program fetched.
		return inline("%s %s runs a program from %s, which the analysis cannot read", name, program.Value, next.Src)
	}
	return codeForm{why: fmt.Sprintf("%s runs the program file %s, whose code the analysis does not read", name, program.Src), file: program.Value}
}

// clusterCode walks a cluster of short options (the letters after "-"): the first option
// that gives code, names a module (m), a warning filter (W) or makes the interpreter run
// nothing, with the rest of the cluster as its attached value; takes reports an option that
// takes a value (the rest of the cluster, or the next word when the cluster ends there).
func clusterCode(cluster string, spec codeSpec) (f byte, value string, takes bool) {
	for j := 0; j < len(cluster); j++ {
		f := cluster[j]
		rest := cluster[j+1:]
		switch {
		case strings.IndexByte(spec.short, f) >= 0, strings.IndexByte(spec.noRunShort, f) >= 0:
			return f, rest, false
		case strings.IndexByte(spec.stop, f) >= 0:
			return f, rest, strings.IndexByte(spec.valueShort, f) >= 0
		}
	}
	return 0, "", false
}

// warningImports reports a python -W filter whose category names a module (ignore::pkg.Warn):
// python imports it before the program runs. value is the filter when attached; otherwise it
// is the word after the option at i.
func warningImports(value string, i int, args []Word) bool {
	if value == "" && i+1 < len(args) {
		if !args[i+1].Known {
			return true
		}
		value = args[i+1].Value
	}
	parts := strings.Split(value, ":")
	return len(parts) > 2 && strings.Contains(parts[2], ".")
}

// deviceProgram reports a program file that is no file of the project: standard input, a
// descriptor, a device or a process's file (what a pipe, a here-string or <(...) feeds).
func deviceProgram(p string) bool {
	return strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/") || p == "/dev" || strings.HasPrefix(p, "//")
}

// urlProgram reports a program named by a URL (deno run https://..., data:), which the
// interpreter fetches or decodes.
var urlProgramRE = lazyRE(`^[A-Za-z][A-Za-z0-9+.-]*:`)

func urlProgram(p string) bool { return urlProgramRE().MatchString(p) }

// stdinProgram is the answer for an interpreter given no inline code and no program file
// (and not asked for its version or help): it runs whatever its standard input holds.
func stdinProgram(name string) string {
	return name + " runs a program read from its standard input (a pipe, a redirection or a here-document)"
}

// runnerKind says how a tool that runs its arguments as commands reads them.
type runnerKind uint8

const (
	// eachScript: every operand is a command line run through a shell (hyperfine 'make').
	eachScript runnerKind = iota
	// restArgv: the operands from the first are a command and its arguments (retry -- make).
	restArgv
	// remoteScript: the first operand is a host; the rest, joined, is a command line run by
	// the remote shell (ssh host make), or, with none, the shell reads its standard input.
	remoteScript
	// stdinScript: the commands are read from standard input (at now); operands are not
	// commands.
	stdinScript
)

// runnerSpec describes a tool that runs its arguments as commands, as its knowledge-base
// entry says (facts.go).
type runnerSpec struct {
	kind runnerKind
	// value are short options that take a value; scripts the options (short or long) whose
	// value is itself a command line; valueLong long options that take a separate value.
	value     string
	scripts   []string
	valueLong []string
	// quiet are options after which no command is run (ssh -N): standard input is not read
	// as commands either.
	quiet string
	why   string
}

// runnerScripts returns the command lines a runner runs, as text, or why they cannot be seen;
// stdin reports that it runs commands read from its standard input instead.
func runnerScripts(name string, args []Word, spec runnerSpec) (scripts []string, stdin bool, why string) {
	unknown := func(w Word) ([]string, bool, string) {
		return nil, false, fmt.Sprintf("%s, and %s is only known when it runs", spec.why, w.Src)
	}
	var ops []Word
	quiet := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			return unknown(a)
		}
		v := a.Value
		if v == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if len(ops) > 0 && (spec.kind == restArgv || spec.kind == remoteScript) {
			// The command starts at the first operand (a stdin runner's operands are no
			// commands: its options may follow them, asciinema rec -c cmd).
			ops = append(ops, args[i:]...)
			break
		}
		if len(v) < 2 || v[0] != '-' {
			ops = append(ops, a)
			continue
		}
		opt, val, hasVal := optionValue(v, spec)
		quiet = quiet || quietCluster(v, spec)
		if opt == "" {
			continue // a cluster of options that take no value
		}
		if !hasVal {
			if i+1 >= len(args) {
				break
			}
			i++
			if !args[i].Known {
				return unknown(args[i])
			}
			val = args[i].Value
		}
		if contains(spec.scripts, opt) {
			scripts = append(scripts, val)
		} else if rc, ok := remoteCommand(name, opt, val); ok {
			scripts, quiet = append(scripts, rc), true
		}
	}
	for _, o := range ops {
		if !o.Known || o.Placeholder {
			return unknown(o)
		}
	}
	switch spec.kind {
	case eachScript:
		for _, o := range ops {
			scripts = append(scripts, o.Value)
		}
	case restArgv:
		// An option the table does not know may take the next word: the command may start
		// at any operand, so each is tried, as speculate does for wrappers.
		for k, o := range ops {
			if k == 0 || !strings.HasPrefix(o.Value, "-") {
				scripts = append(scripts, joinValues(ops[k:], true))
			}
			if len(scripts) == 8 {
				break
			}
		}
	case remoteScript:
		if len(ops) > 1 {
			// The remote shell reads the words joined by spaces: their quoting is lost.
			scripts = append(scripts, joinValues(ops[1:], false))
		}
		stdin = len(ops) <= 1 && !quiet
	case stdinScript:
		stdin = len(scripts) == 0
	}
	return scripts, stdin, ""
}

// optionValue reads one option word of a runner: the option that takes a value (a long
// option, or the short option of a cluster: -tp 22 is -t -p 22, -p22 is -p 22) and its value
// when attached. opt is "" for a word of options that take none.
func optionValue(v string, spec runnerSpec) (opt, val string, hasVal bool) {
	if strings.HasPrefix(v, "--") {
		opt, val, hasVal = strings.Cut(v, "=")
		if contains(spec.valueLong, opt) || contains(spec.scripts, opt) {
			return opt, val, hasVal
		}
		return "", "", false
	}
	if contains(spec.scripts, v) || contains(spec.valueLong, v) {
		return v, "", false // a single-dash long option (-ex)
	}
	for j := 1; j < len(v); j++ {
		f := "-" + v[j:j+1]
		if strings.IndexByte(spec.value, v[j]) >= 0 || contains(spec.scripts, f) {
			if j+1 < len(v) {
				return f, v[j+1:], true
			}
			return f, "", false
		}
	}
	return "", "", false
}

// quietCluster reports a short-option cluster holding an option after which no command runs,
// before any option that takes a value (whose value the rest of the cluster is).
func quietCluster(v string, spec runnerSpec) bool {
	if strings.HasPrefix(v, "--") {
		return false
	}
	for j := 1; j < len(v); j++ {
		switch {
		case strings.IndexByte(spec.quiet, v[j]) >= 0:
			return true
		case strings.IndexByte(spec.value, v[j]) >= 0:
			return false
		}
	}
	return false
}

// remoteCommand finds ssh's -o RemoteCommand=cmd, a command line run on the remote host.
func remoteCommand(name, opt, val string) (string, bool) {
	if name != "ssh" || opt != "-o" {
		return "", false
	}
	k, v, ok := strings.Cut(val, "=")
	if !ok {
		k, v, ok = strings.Cut(strings.TrimSpace(val), " ")
	}
	return strings.TrimSpace(v), ok && strings.EqualFold(strings.TrimSpace(k), "RemoteCommand")
}

// stdinCommands returns the literal here-document or here-string a command reads as commands,
// or why its standard input cannot be seen.
func stdinCommands(c *Command, name string) (string, string) {
	for _, r := range c.Redirects {
		switch {
		case (r.Kind == RedirHeredoc || r.Kind == RedirHereString) && r.Body.Known:
			return r.Body.Value, ""
		case r.Kind == RedirHeredoc || r.Kind == RedirHereString:
			return "", name + " reads commands that are not literal text"
		}
	}
	return "", name + " runs commands read from its standard input, which the analysis cannot see"
}

// dbShellRE finds statements that run a program: psql \! and COPY ... PROGRAM and \o |,
// sqlite3 .shell, .system, .load, .once and .output to a pipe, .import and .read from a pipe,
// mysql system and \!, and pager commands.
//
// sqlite3 takes any prefix of a dot-command (.sh is .shell, .sy .system, .l .load), resolved
// against its own table: every prefix of a command that runs a program counts, and a
// once/output/excel/import/read that pipes or opens a program (| cmd, -x, -e) does.
var dbShellRE = lazyRE(`(?im)(^|[;\s])(\\!|\\o\s*\||\\g\s*\||\\gexec\b|\\e(dit|f|v)?\b|\\pset\s+pager|` + sqliteExec + `|` +
	`\.(o|on|onc|once|ou|out|outp|outpu|output|i|im|imp|impo|impor|import|r|re|rea|read|ex|exc|exce|excel)\b[^\n;]*(['"]\||\s\||\s-[xe]\b)|system\b|pager\b|\\P)|\bprogram\b|\bedit\s*\(`)

// sqliteExec are the prefixes of sqlite3's dot-commands that run a program or load code.
const sqliteExec = `\.(s|sh|she|shel|shell|sy|sys|syst|syste|system|l|lo|loa|load|e|ex|exc|exce|excel)\b`

// dbReadRE finds statements that read a file: psql \i, \ir, \copy ... from, COPY ... FROM,
// pg_read_file, lo_import; sqlite3 .read, .import, readfile(); mysql source, \. and LOAD DATA.
var dbReadRE = lazyRE(`(?im)(^|[;\s])(\\i|\\ir|\\copy|\\\.|\.read|\.import|\.open|source|load\s+data|attach)\b|\b(copy|pg_read_file|pg_read_binary_file|lo_import|readfile|load_file)\b`)

// dbShellLineRE takes the command line of a shell escape, for the rules to see.
var dbShellLineRE = lazyRE(`(?m)(?:\\!|\.(?:sh|she|shel|shell|sy|sys|syst|syste|system)\b|^\s*system)[ \t]+([^\n]+)`)

// dbCode returns the statements a database client is given (-c, -e, --command, --execute,
// and sqlite3's operands after the database), and why some cannot be seen (a file, standard
// input).
func dbCode(c *Command, name string) (code []string, why string) {
	args := c.Argv[1:]
	ops, info := 0, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			return nil, fmt.Sprintf("%s runs statements only known when they run (%s)", name, a.Src)
		}
		v := a.Value
		opt, val, hasVal := strings.Cut(v, "=")
		switch {
		case v == "--version" || v == "-V" || v == "--help" || v == "-?" || v == "-version" || v == "-help" || (name == "psql" && (v == "-l" || v == "--list")):
			info = true
		case opt == "-c" || opt == "--command" || opt == "-e" || opt == "--execute" || opt == "-cmd":
			if !hasVal {
				if i+1 >= len(args) || !args[i+1].Known {
					return nil, name + " runs statements only known when they run"
				}
				i++
				val = args[i].Value
			}
			code = append(code, val)
		case opt == "-f" || opt == "--file" || opt == "-init" || strings.HasPrefix(v, "--init-command"):
			return nil, name + " runs the statements of a file the analysis does not read"
		case strings.HasPrefix(v, "-c") && name == "psql", strings.HasPrefix(v, "-e") && (name == "mysql" || name == "mariadb"):
			code = append(code, v[2:])
		case !strings.HasPrefix(v, "-"):
			ops++
			if ops > 1 && (name == "sqlite3" || name == "sqlite" || name == "duckdb") {
				code = append(code, v)
			}
		}
	}
	if len(code) == 0 {
		for _, r := range c.Redirects {
			if r.Kind == RedirHeredoc || r.Kind == RedirHereString {
				if !r.Body.Known {
					return nil, name + " reads statements that are not literal text"
				}
				code = append(code, r.Body.Value)
			} else if r.Kind == RedirIn && (r.Fd == "" || r.Fd == "0") {
				return nil, name + " runs the statements of a file the analysis does not read"
			}
		}
		if len(code) == 0 && !info {
			// No statements given: the client runs whatever its standard input holds.
			return nil, name + " runs statements read from its standard input"
		}
	}
	return code, ""
}

// dbShellLines returns the command lines of the shell escapes in a client's statements.
func dbShellLines(code []string) []string {
	var out []string
	for _, s := range code {
		for _, m := range dbShellLineRE().FindAllStringSubmatch(s, 8) {
			out = append(out, strings.TrimSpace(m[1]))
		}
	}
	return out
}

// runnerLines is the walk's hook (cmdline.Hooks.Runs): the command lines a runner or a
// database client's shell escapes run, which the walk records as speculative children so that
// deny and ask rules meet them. It reports whether name is such a tool.
func runnerLines(c *Command, name string, args []Word) ([]string, bool) {
	var lines []string
	if spec, ok := roles().runners[name]; ok {
		var stdin bool
		lines, stdin, _ = runnerScripts(name, args, spec)
		if body, why := stdinCommands(c, name); stdin && why == "" {
			lines = append(lines, body)
		}
	} else if isDBClient(name) {
		code, _ := dbCode(c, name)
		lines = dbShellLines(code)
	} else {
		return nil, false
	}
	return lines, true
}

// codeWhy says why a command carries code the analysis cannot see, and whether that code
// can read files the Read check does not see. It depends on the command alone. Code read
// from a program file or module the command names is codeFile's, not codeWhy's.
func codeWhy(c *Command, depth int) (why string, reads bool) {
	why, reads, _ = codeOf(c, depth)
	return why, reads
}

// codeOf is codeWhy with the program file or module an interpreter reads its code from, when
// that is where the code is (file set, reads false: the Read check sees the file's name).
func codeOf(c *Command, depth int) (why string, reads bool, file string) {
	if c.Kind != KindCall || len(c.Argv) == 0 {
		return "", false, ""
	}
	name, _ := commandName(c.Argv[0])
	if spec, ok := interpreterFor(name); ok && !seesCode(name) {
		f := inlineCodeWhy(c, name, spec)
		return f.why, f.why != "" && f.file == "", f.file
	}
	if why := makefileFromStdin(c, name); why != "" {
		return why, true, ""
	}
	why, reads = toolCodeWhy(c, name, depth)
	return why, reads, ""
}

// toolCodeWhy is codeWhy for runners and database clients.
func toolCodeWhy(c *Command, name string, depth int) (why string, reads bool) {
	if spec, ok := roles().runners[name]; ok {
		scripts, stdin, why := runnerScripts(name, c.Argv[1:], spec)
		if why != "" {
			return why, true
		}
		if stdin {
			body, why := stdinCommands(c, name)
			if why != "" {
				return why, true
			}
			scripts = append(scripts, body)
		}
		for _, s := range scripts {
			if why, reads := scriptSeen(s, depth); why != "" {
				return spec.why + ": " + why, reads
			}
		}
		return "", false
	}
	if isDBClient(name) {
		return dbWhy(c, name, depth)
	}
	return "", false
}

// dbWhy is codeWhy for a database client.
func dbWhy(c *Command, name string, depth int) (string, bool) {
	code, why := dbCode(c, name)
	if why != "" {
		return why, true
	}
	reads := false
	for _, s := range code {
		reads = reads || dbReadRE().MatchString(s)
	}
	for _, s := range code {
		if !dbShellRE().MatchString(s) {
			continue
		}
		lines := dbShellLines([]string{s})
		// What is left once the shell escapes are taken out must run nothing else
		// (\! ls; COPY t TO PROGRAM 'rm x').
		if rest := dbShellLineRE().ReplaceAllString(s, ""); len(lines) == 0 || dbShellRE().MatchString(rest) {
			return name + " statements run a program the analysis cannot see (" + firstMatch(dbShellRE(), rest) + ")", true
		}
		for _, l := range lines {
			if why, r := scriptSeen(l, depth); why != "" {
				return name + " runs a shell command: " + why, r || reads
			}
		}
	}
	if reads {
		return name + " statements read files (" + firstMatch(dbReadRE(), strings.Join(code, "\n")) + ")", true
	}
	return "", false
}

func firstMatch(re *regexp.Regexp, s string) string {
	return strings.TrimSpace(re.FindString(s))
}

// scriptSeen says why a command line cannot be seen whole: it does not parse, or some command
// in it is not fully known or carries code of its own. A line that passes has every command
// checked by the rules as a speculative child.
func scriptSeen(s string, depth int) (why string, reads bool) {
	if depth > 4 {
		return "commands nest too deeply to follow", true
	}
	a, err := Analyze(s)
	if err != nil {
		return fmt.Sprintf("%q does not parse as a command line", s), true
	}
	for _, c := range a.Commands {
		if len(c.Issues) > 0 {
			return fmt.Sprintf("in %q, %s", s, c.Issues[0]), true
		}
		if !fullyKnown(c, nil) {
			return fmt.Sprintf("%q holds words only known when it runs", s), true
		}
		if why, reads := codeWhy(c, depth+1); why != "" {
			return why, reads
		}
	}
	return "", false
}

// stageOpaque is the effects stage's check for code the analysis cannot see (see the top of
// this file): a safety ask when a Bash deny or ask rule exists, or when a Read deny or ask
// rule exists and the code can read files.
func (k *checker) stageOpaque(c *Command) result {
	if !k.idx.denyAsk && !k.idx.readRules {
		return allowed
	}
	why, reads, file := codeOf(c, 0)
	if file != "" {
		return k.fileCode(c, why, file)
	}
	if why == "" && k.idx.denyAsk && c.ExtraArgs {
		why = k.launchedFromInput(c, 0)
	}
	if why == "" && k.idx.denyAsk && !c.Speculative {
		// The words from an operand on that a rule names are matched as the allow stage
		// matches them under a prefix rule (laterCommandRule): the rule's own verdict.
		if name := firstName(c); name != "" && !knownArgs(name) {
			if hit, ok := k.rules.laterCommandRule(c); ok {
				return hit
			}
			why = k.idx.unknownRunner(c, name)
		}
	}
	switch {
	case why == "":
		return allowed
	case k.idx.denyAsk:
		return k.verdicts.opaqueAsk(c, why, "your Bash deny and ask rules cannot be checked against it")
	case reads:
		return k.verdicts.opaqueAsk(c, why, "your Read deny and ask rules cannot be checked against the files it reads")
	}
	return allowed
}

// launchedFromInput says why a command xargs runs with words from its input (c, ExtraArgs)
// may run a command named by that input: xargs appends the words to the innermost command, so
// a wrapper or launcher with no command of its own runs the first of them (xargs timeout 1,
// xargs env), and a shell with no script runs them as one (xargs sh -c). A wrapper with a
// command passes the words on to it.
func (k *checker) launchedFromInput(c *Command, depth int) string {
	name := firstName(c)
	var kids []*Command
	for _, ch := range k.memo.children[c] {
		if !ch.Speculative {
			kids = append(kids, ch)
		}
	}
	_, launcher := roles().launchers[name]
	_, runner := roles().runners[name]
	_, wrapper := wrappers[name]
	switch {
	case depth > 8:
		return "xargs runs a command nested too deeply to follow"
	case isShell(name):
		// Without -c the words are a script file and its arguments, which the shell's own
		// check reports.
		if len(kids) == 0 && hasShortLetter(c.Argv[1:], 'c') {
			return "xargs gives " + name + " words from its input, which it runs as its script"
		}
	case wrapper || launcher || runner:
		if len(kids) == 0 {
			return "xargs gives " + name + " words from its input, the first of which is the command it runs"
		}
		for _, ch := range kids {
			if why := k.launchedFromInput(ch, depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

// fileCode is stageOpaque for an interpreter running a program file or module it names
// (python3 x.py, python3 -m pytest): the code is the project's, not the command line's, but
// the analysis reads none of it, so with a Bash deny or ask rule in force it may be what a
// rule names. An allow rule that names the file or module (Bash(python3 -m pytest:*),
// Bash(node build.js)) is the person's word for that code and settles it; a rule for the
// interpreter alone, a tool-wide allow and bypass mode do not. A name that is a device, a
// pipe or a socket on disk is no program file: its content is the command line's.
func (k *checker) fileCode(c *Command, why, file string) result {
	if !k.idx.denyAsk {
		return allowed
	}
	if !strings.HasPrefix(why, firstName(c)+" -m ") {
		if abs, err := k.pc.ResolvePath(file); err == nil {
			if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
				return k.verdicts.opaqueAsk(c, fmt.Sprintf("%s runs its program from %s, which is a device, a pipe or a socket, not a file", firstName(c), file),
					"your Bash deny and ask rules cannot be checked against it")
			}
		}
	}
	if k.allowNames(c, file) {
		return allowed
	}
	return k.verdicts.fileCodeAsk(c, why, file)
}

// allowNames reports an allow rule for c that names word beyond the program's name: an exact
// rule for the whole command, or a prefix or wildcard rule with word among its literal words.
func (k *checker) allowNames(c *Command, word string) bool {
	// Only the file or module is settled here: the allow stage still judges the command
	// whole (its other words, one simple command), as for any other.
	cands := candidates(c, make([]string, candsPerCommand))
	if k.idx.allow.match(cands.allowExact, false) != nil {
		return true
	}
	r := k.idx.allow.match(cands.allowLoose, true)
	return r != nil && ruleNamesWord(r.Value.Content, word)
}

// ruleNamesWord reports whether the literal part of a rule content (before its first "*")
// holds word as a word after the program's name.
func ruleNamesWord(content, word string) bool {
	content = strings.TrimSuffix(content, ":*")
	if i := strings.IndexByte(content, '*'); i >= 0 {
		content = content[:i]
	}
	fields := strings.Fields(content)
	return len(fields) > 1 && (slices.Contains(fields[1:], word) || slices.Contains(fields[1:], "-m"+word))
}

// knownArgs are commands whose arguments the analysis models (their options, their paths, the
// commands they run): an argument that reads like a command is data to them.
func knownArgs(name string) bool {
	if _, ok := readOnlyFor(name); ok {
		return true
	}
	_, wrapper := wrappers[name]
	_, launcher := roles().launchers[name]
	_, runner := roles().runners[name]
	_, interp := interpreterFor(name)
	return wrapper || launcher || runner || interp || isShell(name) || isDBClient(name) || execOptionCommands()[name] ||
		roles().hazard[name] || acceptEditsCommands[name] || roles().data[name]
}

// unknownRunner finds an unknown program's arguments that read as a command a deny or ask rule
// names: an argument that parses as a command line (foo 'rm -rf x', foo --cmd='rm x'), or the
// words from an operand on (foo -- rm -rf x). A program the analysis does not know may run
// them, whatever its name.
func (x *bashIndexes) unknownRunner(c *Command, name string) string {
	args := c.Argv[1:]
	for i, a := range args {
		if i == 16 {
			break
		}
		if !a.Known || strings.HasPrefix(a.Value, "-") || strings.Contains(a.Value, "=") || !x.mayName(a.Value) {
			continue
		}
		if v := x.lineRule(joinValues(args[i:], true)); v >= vAskRule {
			return fmt.Sprintf("%s is not a program the analysis knows, and its arguments from %s on read as a command that %s rule names", name, a.Src, ruleWord(v))
		}
	}
	for i, a := range args {
		if i == 16 {
			break
		}
		if !a.Known {
			continue
		}
		s := a.Value
		if _, v, ok := strings.Cut(s, "="); ok && strings.HasPrefix(s, "-") {
			s = v
		}
		if !strings.ContainsAny(s, " \t\n;|&") || len(s) > maxParseLength {
			continue
		}
		if v := x.lineRule(s); v >= vAskRule {
			return fmt.Sprintf("%s is not a program the analysis knows, and its argument %s parses as a command that %s rule names", name, a.Src, ruleWord(v))
		}
	}
	return ""
}

func ruleWord(v verdict) string {
	if v == vDeny {
		return "a deny"
	}
	return "an ask"
}

// lineRule matches deny and ask rules against every command of a command line.
func (x *bashIndexes) lineRule(s string) verdict {
	a, err := Analyze(s)
	if err != nil {
		return vAllow
	}
	worst := vAllow
	for _, c := range a.Commands {
		if len(c.Argv) == 0 || !c.Argv[0].Known || !x.mayName(c.Argv[0].Value) {
			continue
		}
		cs := candidates(c, make([]string, candsPerCommand))
		switch {
		case x.deny.match(cs.deny, true) != nil || normMatch(x.normDeny, c.Argv) != nil:
			return vDeny
		case x.ask.match(cs.deny, true) != nil || normMatch(x.normAsk, c.Argv) != nil:
			worst = vAskRule
		}
	}
	return worst
}

func firstName(c *Command) string {
	name, _ := commandName(c.Argv[0])
	return name
}

// makefileFromStdin says why make reads its makefile, whose recipes are command lines it
// runs, from something the analysis cannot see: -f - (standard input: a pipe, a redirection,
// a here-document), a device or pipe (-f /dev/stdin, -f /dev/fd/3) or a word only known when
// it runs (-f <(...)). A makefile in the project is the project's, like any make.
func makefileFromStdin(c *Command, name string) string {
	if name != "make" && name != "gmake" {
		return ""
	}
	e, ok := knowledge.Lookup(name)
	if !ok {
		return ""
	}
	for _, w := range c.Argv[1:] {
		// A word only partly known (-f<(...)) is no option to the parser, but make reads it.
		if !w.Known && (strings.HasPrefix(w.Src, "-f") || strings.HasPrefix(w.Src, "--f") || strings.HasPrefix(w.Src, "--m")) {
			return fmt.Sprintf("%s reads a makefile only known when it runs (%s), and runs its recipes", name, w.Src)
		}
	}
	var buf [8]knowledge.Arg
	args := kbArgs(c.Argv[1:], buf[:0])
	for _, u := range e.Parse(args).Uses {
		if u.Opt.Long() != "--file" {
			continue
		}
		switch {
		case u.ValueArg >= 0 && !args[u.ValueArg].Known:
			return fmt.Sprintf("%s reads a makefile only known when it runs (%s), and runs its recipes", name, c.Argv[1+u.ValueArg].Src)
		case u.Value == "-" || deviceProgram(u.Value):
			return fmt.Sprintf("%s reads its makefile from %s, whose recipes the analysis cannot see, and runs them", name, u.Value)
		}
	}
	return ""
}

// hasShortLetter reports a cluster of short options holding letter (sh -ec).
func hasShortLetter(args []Word, letter byte) bool {
	for _, a := range args {
		if a.Known && len(a.Value) > 1 && a.Value[0] == '-' && a.Value[1] != '-' && strings.IndexByte(a.Value[1:], letter) >= 0 {
			return true
		}
	}
	return false
}
