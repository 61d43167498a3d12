package bashrules

import (
	"fmt"
	"sync"
)

// What a program needs in Go beyond its knowledge-base entry: code that reads its arguments
// in a way an entry cannot state (sed's script, find's expression, git's revisions). An entry
// says everything it can as data (its options, their value types, its roles); what is left is
// registered here, once per program and facet, from the file beside the program's entry: the
// code of the programs whose entries are in knowledge/programs/NAME.kb is registered in
// kb_NAME.go (TestProgramCodeBesideItsEntry). Adding a program is then one entry and at most
// one Go file.
//
// Registration happens in init functions; the checker reads the registry only after init,
// through the lazily built tables, so the order of the files does not matter. A registered
// function reads its entry (kbSpec) when it is called, not when it is registered: init must
// not load the knowledge base (TestOwnPackageInitsStaySmall). A registration covers exactly
// the name it gives, not the other names of its entry, so a family registers each name that
// shares the code and a variant may differ (rgrep is grep -r; node's words are not probed,
// nodejs's are, as before the registry).

// programCode is one program's registered code, by facet.
type programCode struct {
	// paths finds the paths the program's arguments name and what it does with each.
	paths pathFunc
	// readOnly says why the program's arguments keep it out of the read-only set, beyond
	// what its entry's options say (git's subcommands, test's subscripts), for a name whose
	// entry says flags readonly.
	readOnly roFunc
}

var (
	codeMu       sync.Mutex
	programCodes = map[string]*programCode{}
)

// registered returns the code registered for a program name, or nil.
func registered(name string) *programCode {
	codeMu.Lock()
	defer codeMu.Unlock()
	return programCodes[name]
}

// readOnlyCode returns the read-only code registered for a program name, or nil.
func readOnlyCode(name string) roFunc {
	if c := registered(name); c != nil {
		return c.readOnly
	}
	return nil
}

// register records one facet of one program's code. A second registration of the same facet
// is a programming error, caught at start-up (and by every test).
func register(name, facet string, set func(*programCode) bool) {
	codeMu.Lock()
	defer codeMu.Unlock()
	c := programCodes[name]
	if c == nil {
		c = &programCode{}
		programCodes[name] = c
	}
	if !set(c) {
		panic(fmt.Sprintf("bashrules: %s code for %s registered twice", facet, name))
	}
}

// registerPaths registers the code that finds a program's paths.
func registerPaths(name string, f pathFunc) {
	register(name, "paths", func(c *programCode) bool {
		if c.paths != nil {
			return false
		}
		c.paths = f
		return true
	})
}

// registerReadOnly registers the read-only judgement of a program whose entry says flags
// readonly and whose arguments need reading in its own way.
func registerReadOnly(name string, f roFunc) {
	register(name, "read-only", func(c *programCode) bool {
		if c.readOnly != nil {
			return false
		}
		c.readOnly = f
		return true
	})
}
