package cmdline

import (
	"fmt"
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// What a wrapper needs in Go beyond its knowledge-base entry: code that finds where the
// command it runs starts when no list of options can say it (timeout's duration, env's -S
// script, su's -c, watch joining its words for sh -c). An entry says "role wrapper ... code"
// and its peel is registered here, once per name, from the file beside the entry: the peels
// of the programs whose entries are in knowledge/programs/NAME.kb are registered in
// kb_NAME.go of this package (bashrules' TestProgramCodeBesideItsEntry). Every other wrapper
// is data: the options its role lists, then the command at the first operand.
//
// Registration happens in init functions and the table is built on first use, after init, so
// that init does not load the knowledge base.

// PeelFunc finds where the wrapped command starts in a wrapper's arguments. It returns a
// script to parse instead when the wrapper runs its arguments through a shell, otherDir when
// that command runs in another directory, and ok=false when it does not understand the
// options.
type PeelFunc func(args []Word) (inner int, script *Word, otherDir, ok bool)

var (
	peelMu sync.Mutex
	peels  = map[string]PeelFunc{}
)

// registerPeel records the peel of one wrapper name. A second registration is a programming
// error, caught at start-up (and by every test).
func registerPeel(name string, f PeelFunc) {
	peelMu.Lock()
	defer peelMu.Unlock()
	if _, dup := peels[name]; dup {
		panic(fmt.Sprintf("cmdline: peel for %s registered twice", name))
	}
	peels[name] = f
}

// RegisteredPeel returns the peel registered for a wrapper name.
func RegisteredPeel(name string) (PeelFunc, bool) {
	peelMu.Lock()
	defer peelMu.Unlock()
	f, ok := peels[name]
	return f, ok
}

// RegisteredPeels lists the names with a registered peel.
func RegisteredPeels() []string {
	peelMu.Lock()
	defer peelMu.Unlock()
	out := make([]string, 0, len(peels))
	for n := range peels {
		out = append(out, n)
	}
	return out
}

// wrapperSpecOf reads an entry's wrapper role under one of its names. A "code" role whose
// name has no registered peel is read as a guess, the strictest reading (a test fails).
func wrapperSpecOf(name string, e *knowledge.Command, r knowledge.WrapperRole) WrapperSpec {
	spec := WrapperSpec{Safe: r.Safe}
	switch r.Start {
	case "operand":
		spec.Peel = optionsPeel(e, r.Options)
	case "code":
		if f, ok := RegisteredPeel(name); ok {
			spec.Peel = f
		}
	}
	return spec
}

// optionsPeel reads past the options a wrapper role lists, each with the arity its entry
// gives it; the wrapped command starts at the first operand. A single-dash word spelling is
// not read: an option spelled so leaves the start unknown.
func optionsPeel(e *knowledge.Command, spellings []string) PeelFunc {
	var boolShort, valueShort strings.Builder
	var boolLong, valueLong []string
	for _, s := range spellings {
		_, ar, ok := e.OptionSpelled(s)
		if !ok {
			continue
		}
		value := ar == knowledge.Required
		switch {
		case strings.HasPrefix(s, "--"):
			if value {
				valueLong = append(valueLong, s[2:])
			} else {
				boolLong = append(boolLong, s[2:])
			}
		case len(s) == 2:
			if value {
				valueShort.WriteByte(s[1])
			} else {
				boolShort.WriteByte(s[1])
			}
		}
	}
	return flagsPeel(boolShort.String(), valueShort.String(), boolLong, valueLong)
}
