package bashrules

import (
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/cmdline"
	"github.com/reinsdev/reins/bashrules/knowledge"
)

// What the checker asks the knowledge base about a program's role: whether it is a shell, an
// interpreter, a runner, a database client or a launcher, which of its subcommands are local,
// whether its operands are data. The entries are the only place these facts live; roleTables
// indexes them once, by every name of every entry, so that a check costs a map lookup.

// roleTables are the knowledge base's roles, by program name.
type roleTables struct {
	interp    map[string]codeSpec
	runners   map[string]runnerSpec
	launchers map[string]cmdline.LauncherSpec
	localSubs map[string]map[string]bool
	db, data  map[string]bool
	local     map[string]bool // the program's own work is local (a wrapper)
	hazard    map[string]bool
	// shellNoRun are a shell's short options after which it runs nothing (bash -n).
	shellNoRun map[string]string
	// edits run in acceptEdits mode once their writes pass (mkdir, cp, sed); subscripts
	// evaluate array subscripts (printf -v); noSuggest get no suggested rule (shells, sudo).
	edits, subscripts, noSuggest map[string]bool
	// setsVars set the variables their arguments name (read x); declares are the plain
	// declarations (declare, export, local).
	setsVars, declares map[string]bool
	// shellText says what a builtin that runs shell text runs (eval, source).
	shellText map[string]string
	// commands are the words that, first, name a program's own command (go vet, cargo b),
	// with 2 for a subcommand whose next word is a script's name too (npm run-script x).
	commands map[string]map[string]int
	// runsNamed are the subcommands whose next word names what runs (npm run, docker exec).
	runsNamed map[string]map[string]bool
	// destroyers list what the programs that delete or overwrite files would destroy (the
	// damage budget's code for the kind their entries name).
	destroyers map[string]destroyerFunc
	// execValues have options or operands that run code, read by value (crontab FILE).
	execValues map[string]bool
	// chdir change the shell's directory (cd, pushd), true for those that take it from the
	// directory stack (popd).
	chdir map[string]bool
}

var roles = sync.OnceValue(func() *roleTables {
	t := &roleTables{interp: map[string]codeSpec{}, runners: map[string]runnerSpec{},
		launchers: map[string]cmdline.LauncherSpec{}, localSubs: map[string]map[string]bool{}, db: map[string]bool{},
		data: map[string]bool{}, local: map[string]bool{}, hazard: map[string]bool{}, shellNoRun: map[string]string{},
		edits: map[string]bool{}, subscripts: map[string]bool{}, noSuggest: map[string]bool{}, shellText: map[string]string{},
		setsVars: map[string]bool{}, declares: map[string]bool{},
		commands: map[string]map[string]int{}, runsNamed: map[string]map[string]bool{},
		destroyers: map[string]destroyerFunc{}, execValues: map[string]bool{}, chdir: map[string]bool{}}
	for _, e := range knowledge.Builtin().Programs() {
		for _, n := range e.Names {
			t.add(n, e)
		}
	}
	return t
})

// add indexes the roles of one entry under one of its names.
func (t *roleTables) add(name string, e *knowledge.Command) {
	if w, ok := e.Role(knowledge.RoleInterpreter); ok {
		t.interp[name] = codeSpecOf(e, w)
	}
	if _, ok := e.Role(knowledge.RoleShell); ok {
		t.shellNoRun[name] = shortLetters(e, func(o *knowledge.Option, _ string) bool { return o.NoRun })
	}
	if w, ok := e.Role(knowledge.RoleRunner); ok {
		t.runners[name] = runnerSpecOf(name, e, w[0])
	}
	if ls, ok := cmdline.Launcher(name); ok {
		t.launchers[name] = ls
	}
	if w, ok := e.Role(knowledge.RoleLocal); ok {
		if len(w) == 0 {
			t.local[name] = true
		} else {
			t.localSubs[name] = map[string]bool{}
			for _, s := range w {
				t.localSubs[name][s] = true
			}
		}
	}
	_, t.db[name] = e.Role(knowledge.RoleDBClient)
	_, t.data[name] = e.Role(knowledge.RoleData)
	_, t.hazard[name] = e.Role(knowledge.RoleGlobHazard)
	_, t.edits[name] = e.Role(knowledge.RoleEdits)
	_, t.subscripts[name] = e.Role(knowledge.RoleSubscripts)
	_, t.noSuggest[name] = e.Role(knowledge.RoleNoSuggest)
	_, t.setsVars[name] = e.Role(knowledge.RoleSetsVars)
	_, t.declares[name] = e.Role(knowledge.RoleDeclares)
	_, t.execValues[name] = e.Role(knowledge.RoleExecValues)
	if w, ok := e.Role(knowledge.RoleChdir); ok {
		t.chdir[name] = len(w) > 0 && w[0] == "stack"
	}
	if w, ok := e.Role(knowledge.RoleDestroys); ok {
		t.destroyers[name] = damageKinds[w[0]](name)
	}
	if w, ok := e.Role(knowledge.RoleShellText); ok {
		t.shellText[name] = name + " runs a script file"
		if w[0] == "args" {
			t.shellText[name] = name + " runs its arguments as shell commands"
		}
	}
	if w, ok := e.Role(knowledge.RoleCommands); ok {
		t.commands[name] = commandWordsOf(e, w)
	}
	if w, ok := e.Role(knowledge.RoleRunsNamed); ok {
		t.runsNamed[name] = map[string]bool{}
		for _, s := range w {
			t.runsNamed[name][s] = true
		}
	}
}

// commandWordsOf are the first words of the names of an entry's subcommands, 2 for those
// of the subcommands (scripts) whose next word is a script's name.
func commandWordsOf(e *knowledge.Command, scripts []string) map[string]int {
	out := map[string]int{}
	for _, s := range e.Subcommands() {
		n := 1
		if slices.Contains(scripts, s.Names[0]) {
			n = 2
		}
		for _, name := range s.Names {
			first, _, _ := strings.Cut(name, "/")
			if out[first] < n {
				out[first] = n
			}
		}
	}
	return out
}

// spellings lists the spellings of the options that pass keep: short ones (as "-x") only
// when short is set, long and single-dash long ones always.
func spellings(e *knowledge.Command, keep func(*knowledge.Option) bool, short bool) []string {
	var out []string
	for _, o := range e.Options {
		if !keep(o) {
			continue
		}
		for _, s := range o.Spellings {
			if short || len(s) > 2 {
				out = append(out, s)
			}
		}
	}
	return out
}

// shortLetters are the letters of the short spellings of the options that pass keep.
func shortLetters(e *knowledge.Command, keep func(*knowledge.Option, string) bool) string {
	var b strings.Builder
	for _, o := range e.Options {
		for _, s := range o.Spellings {
			if len(s) == 2 && keep(o, s) {
				b.WriteByte(s[1])
			}
		}
	}
	return b.String()
}

// codeSpecOf reads an interpreter's entry: its code options, the short options whose value
// ends a cluster, the subcommands whose operands are program text, the options after which
// it runs no program text, the modules that run code given to them, and whether its operands
// are documents rather than a program (ed, vim).
func codeSpecOf(e *knowledge.Command, subs []string) codeSpec {
	spec := codeSpec{
		short:      shortLetters(e, func(o *knowledge.Option, _ string) bool { return o.Code }),
		stop:       shortLetters(e, func(o *knowledge.Option, s string) bool { return !o.Code && o.ArityOf(s) != knowledge.None }),
		long:       spellings(e, func(o *knowledge.Option) bool { return o.Code }, false),
		valueShort: shortLetters(e, func(o *knowledge.Option, s string) bool { return !o.Code && o.ArityOf(s) == knowledge.Required }),
		sub:        subs,
		noRun:      spellings(e, func(o *knowledge.Option) bool { return o.NoRun }, true),
		noRunShort: shortLetters(e, func(o *knowledge.Option, _ string) bool { return o.NoRun }),
	}
	if mods, ok := e.Role(knowledge.RoleCodeModules); ok {
		spec.modules = map[string]bool{}
		for _, m := range mods {
			spec.modules[m] = true
		}
	}
	_, spec.documents = e.Role(knowledge.RoleData)
	return spec
}

// runnerWhy says what each kind of runner does with its arguments.
var runnerWhy = map[string]struct {
	kind runnerKind
	why  string
}{
	"each":   {eachScript, "%s runs each command line it is given"},
	"argv":   {restArgv, "%s runs the command it is given"},
	"remote": {remoteScript, "%s runs the command line it is given on the remote host"},
	"stdin":  {stdinScript, "%s runs the commands it reads later"},
}

// runnerSpecOf reads a runner's entry: the options that take a value (short letters, and
// long spellings), those whose value is a command line, and those after which nothing runs.
func runnerSpecOf(name string, e *knowledge.Command, kind string) runnerSpec {
	k := runnerWhy[kind]
	takesValue := func(o *knowledge.Option, s string) bool { return o.ArityOf(s) == knowledge.Required }
	return runnerSpec{
		kind:    k.kind,
		value:   shortLetters(e, takesValue),
		quiet:   shortLetters(e, func(o *knowledge.Option, _ string) bool { return o.NoRun }),
		scripts: spellings(e, func(o *knowledge.Option) bool { return o.Script }, true),
		valueLong: spellings(e, func(o *knowledge.Option) bool {
			return !o.Script && o.Arity[o.Long()] == knowledge.Required
		}, false),
		why: strings.Replace(k.why, "%s", name, 1),
	}
}

func isDBClient(name string) bool { return roles().db[name] }

// localSub reports a subcommand of a program that reaches no network (git status, go vet).
func localSub(name, sub string) bool { return roles().localSubs[name][sub] }
