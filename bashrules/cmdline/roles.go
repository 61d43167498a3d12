package cmdline

import (
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// What the walk asks the knowledge base: which programs are shells (and whether the bash
// parser reads their scripts faithfully), which are interpreters (and how they are given
// inline code, whose string literals become speculative children), which are launchers, and
// which are wrappers (and how to find the command they run: peels.go). The entries are the only place these facts live; walkRoles indexes them once.

type walkRoles struct {
	shells    map[string]bool // name -> posix
	interp    map[string]*knowledge.Command
	codeFlags map[*knowledge.Command][]string
	launchers map[string]LauncherSpec
	wrappers  map[string]WrapperSpec
}

// LauncherSpec is a launcher's subcommands that run a command ([""]: every word does) and its
// options whose value is a command line (nix-shell --run).
type LauncherSpec struct {
	Subs    []string
	Scripts []string
}

var roles = sync.OnceValue(func() *walkRoles {
	t := &walkRoles{shells: map[string]bool{}, interp: map[string]*knowledge.Command{},
		codeFlags: map[*knowledge.Command][]string{}, launchers: map[string]LauncherSpec{},
		wrappers: map[string]WrapperSpec{}}
	for _, e := range knowledge.Builtin().Programs() {
		for _, n := range e.Names {
			if w, ok := e.Role(knowledge.RoleShell); ok {
				t.shells[n] = len(w) > 0 && w[0] == "posix"
			}
			if w, ok := e.Role(knowledge.RoleInterpreter); ok {
				t.interp[n] = e
				t.codeFlags[e] = codeFlags(e, w)
			}
			if w, ok := e.Role(knowledge.RoleLauncher); ok {
				ls := LauncherSpec{Subs: w, Scripts: scriptSpellings(e)}
				if len(w) == 0 {
					ls.Subs = []string{""}
				}
				t.launchers[n] = ls
			}
			if r, ok := e.Wrapper(); ok {
				t.wrappers[n] = wrapperSpecOf(n, e, r)
			}
		}
	}
	return t
})

// scriptSpellings lists every spelling of the options whose value is a command line.
func scriptSpellings(e *knowledge.Command) []string {
	var out []string
	for _, o := range e.Options {
		if o.Script {
			out = append(out, o.Spellings...)
		}
	}
	return out
}

// IsShell reports whether a command name runs shell scripts.
func IsShell(name string) bool { _, ok := roles().shells[name]; return ok }

// PosixShell reports a shell whose -c scripts the bash parser reads faithfully, so that a
// literal script can be allowed command by command.
func PosixShell(name string) bool { return roles().shells[name] }

// Launcher returns a launcher's entry facts, by the name it was run as.
func Launcher(name string) (LauncherSpec, bool) { s, ok := roles().launchers[name]; return s, ok }

// VersionedPython matches the names python runs under (python, python3, python3.12);
// versionSuffix the versions other interpreters carry in their names (ruby3.2, php8.2,
// lua5.4, node18).
var (
	VersionedPython = LazyRE(`^python[0-9.]*$`)
	versionSuffix   = LazyRE(`[0-9][0-9.]*$`)
)

// Interpreter returns the entry of the interpreter a command name runs, under any name the
// analysis knows it by (python3.12 is python, ruby3.2 ruby). Any program text can reach a
// shell (os.system, child_process, backticks, exec) or read a file, and none of it is a shell
// script the analysis could check.
func Interpreter(name string) (*knowledge.Command, bool) {
	interp := roles().interp
	if e, ok := interp[name]; ok {
		return e, true
	}
	if name == "" {
		return nil, false
	}
	if last := name[len(name)-1]; last != '.' && (last < '0' || last > '9') {
		return nil, false // no version to take off (and no regexp run for every command)
	}
	if strings.HasPrefix(name, "python") && VersionedPython().MatchString(name) {
		e, ok := interp["python"]
		return e, ok
	}
	if base := versionSuffix().ReplaceAllString(name, ""); base != name && base != "" {
		e, ok := interp[strings.TrimSuffix(base, "-")]
		return e, ok
	}
	return nil, false
}

// IsInterpreter reports whether a command name runs code in another language.
func IsInterpreter(name string) bool {
	_, ok := Interpreter(name)
	return ok
}

// interpreterFlags are the options and subcommands that give an interpreter inline code. The
// code is not shell, but string literals in it are often commands passed to system(), exec or
// spawn; deny and ask rules are tried on them.
func interpreterFlags(name string) ([]string, bool) {
	e, ok := Interpreter(name)
	if !ok {
		return nil, false
	}
	return roles().codeFlags[e], true
}

// codeFlags lists every spelling of an interpreter's code options, then the subcommands whose
// operands are program text.
func codeFlags(e *knowledge.Command, subs []string) []string {
	var flags []string
	for _, o := range e.Options {
		if o.Code {
			flags = append(flags, o.Spellings...)
		}
	}
	return append(flags, subs...)
}
