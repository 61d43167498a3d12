package bashrules

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// What an interpreter's command runs that the analysis cannot see (issue 39): every form but
// those its entry proves run no program text. Code the command line carries (inline code,
// standard input, a device or URL as the program, a runner module, a preload option) asks
// whatever the allow rules say; code read from a program file or module the command names
// asks unless an allow rule names that file or module. Also here: make's makefile from a pipe,
// and xargs handing its input to a command that runs it.

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
	_, wrapper := wrapperOf(name)
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
// holds word as a word after the program's name, or as the program itself (a program file:
// Bash(./build.sh:*)).
func ruleNamesWord(content, word string) bool {
	content = strings.TrimSuffix(content, ":*")
	if i := strings.IndexByte(content, '*'); i >= 0 {
		content = content[:i]
	}
	fields := strings.Fields(content)
	if len(fields) > 0 && fields[0] == word {
		return true
	}
	return len(fields) > 1 && (slices.Contains(fields[1:], word) || slices.Contains(fields[1:], "-m"+word))
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
