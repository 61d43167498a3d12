package bashrules

import (
	"fmt"
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

// seesCode reports an interpreter whose program the analysis reads itself: its entry says
// role seescode (awk, whose program the read-only and exec-family checks look into for
// system(), pipes and redirections, and which never reads its program from standard input).
// Being in the read-only set is not enough: node is there only for node --version.
func seesCode(name string) bool {
	e, ok := knowledge.Lookup(name)
	if !ok {
		return false
	}
	_, sees := e.Role(knowledge.RoleSeesCode)
	return sees
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

// dbCode returns the statements a database client is given — the values of the options its
// entry marks code (psql -c, mysql -e, sqlite3 -cmd) and, for role dbclient operands, the
// operands after the database — and why some cannot be seen: a word only known when it runs,
// an option that runs a file (psql -f, sqlite3 -init), an option the entry does not know, a
// client with no option table. With none given, its here-document or standard input.
func dbCode(c *Command, name string) (code []string, why string) {
	args := c.Argv[1:]
	for _, a := range args {
		if !a.Known {
			return nil, fmt.Sprintf("%s runs statements only known when they run (%s)", name, a.Src)
		}
	}
	e, ok := knowledge.Lookup(name)
	if !ok {
		return nil, name + "'s options are not known to the analysis, so its statements are not seen"
	}
	var kbuf [8]knowledge.Arg
	p := parsedPool.Get().(*knowledge.Parsed)
	defer parsedPool.Put(p)
	e.ParseInto(kbArgs(args, kbuf[:]), p)
	if len(p.Unknown) > 0 {
		return nil, name + ": " + p.Unknown[0].Why + ", so its statements are not seen"
	}
	info := false
	for _, u := range p.Uses {
		switch {
		case u.Opt.NoRun:
			info = true
		case u.Opt.Code && u.HasValue:
			code = append(code, valueWord(args, u).Value)
		case u.Opt.Effects&knowledge.Exec != 0:
			return nil, name + " " + u.Spelling + " runs statements or code from a file the analysis does not read"
		}
	}
	if words, _ := e.Role(knowledge.RoleDBClient); slices.Contains(words, "operands") && len(p.Operands) > 1 {
		for _, i := range p.Operands[1:] {
			code = append(code, args[i].Value)
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
	if w0 := c.Argv[0]; programFile(w0, name) {
		return "it runs the program file " + w0.Src + ", which the analysis does not read", false, w0.Value
	}
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

// programFile reports a command named by a path (./build.sh, bin/tool) to a program with no
// entry: its code is whatever the file holds, as bash build.sh's is, and the file may be one
// this command line has just written. A known program under a path (/bin/rm) is checked as
// itself.
func programFile(w0 Word, name string) bool {
	if !w0.Known || !strings.Contains(w0.Value, "/") {
		return false
	}
	_, known := knowledge.Facts(name)
	return !known
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

// knownArgs are commands whose arguments the analysis models (their options, their paths, the
// commands they run): an argument that reads like a command is data to them.
func knownArgs(name string) bool {
	if _, ok := readOnlyFor(name); ok {
		return true
	}
	_, wrapper := wrapperOf(name)
	_, launcher := roles().launchers[name]
	_, runner := roles().runners[name]
	_, interp := interpreterFor(name)
	return wrapper || launcher || runner || interp || isShell(name) || isDBClient(name) || execOptionCommands()[name] ||
		roles().hazard[name] || roles().edits[name] || roles().data[name]
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
