package bashrules

import (
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// optSpec describes a command's options for finding its operands.
type optSpec struct {
	// value lists the short options that take a value ("n" for -n 5 and -n5).
	value string
	// long lists the long options that take a value (--lines 5, --lines=5).
	long []string
	// posix stops option parsing at the first operand, as find and the wrappers do.
	posix bool
}

// opt is one parsed option: "-n" or "--lines", with its value if it takes one.
type opt struct {
	name string
	val  Word
	has  bool
}

// parseArgs splits arguments into options and operands, GNU style: options may follow
// operands, short options cluster (-rf), "--" ends options and "-" is an operand. A word
// whose value is unknown is an operand.
func parseArgs(args []Word, spec optSpec) (opts []opt, operands []Word) {
	if len(args) > 1 {
		opts = make([]opt, 0, min(len(args), 4)) // one allocation for the usual few options
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known || len(a.Value) < 2 || a.Value[0] != '-' {
			operands = append(operands, a)
			if spec.posix {
				return opts, append(operands, args[i+1:]...)
			}
			continue
		}
		v := a.Value
		if v == "--" {
			return opts, append(operands, args[i+1:]...)
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasVal := strings.Cut(v, "=")
			name = "--" + expandLong(spec.long, name[2:])
			o := opt{name: name}
			switch {
			case hasVal:
				o.val, o.has = subWord(a, val), true
			case contains(spec.long, name[2:]) && i+1 < len(args):
				i++
				o.val, o.has = args[i], true
			}
			opts = append(opts, o)
			continue
		}
		for j := 1; j < len(v); j++ {
			o := opt{name: shortOpt(v[j])}
			if strings.IndexByte(spec.value, v[j]) >= 0 {
				if j+1 < len(v) {
					o.val, o.has = subWord(a, v[j+1:]), true
				} else if i+1 < len(args) {
					i++
					o.val, o.has = args[i], true
				}
				opts = append(opts, o)
				break
			}
			opts = append(opts, o)
		}
	}
	return opts, operands
}

// shortOptNames holds "-" and each byte value in turn, so that a short option's name is a
// slice of it rather than a new string.
var shortOptNames = func() string {
	b := make([]byte, 512)
	for i := range 256 {
		b[2*i], b[2*i+1] = '-', byte(i)
	}
	return string(b)
}()

// shortOpt is "-" followed by c.
func shortOpt(c byte) string { return shortOptNames[2*int(c) : 2*int(c)+2] }

// subWord is part of a known word's value (an option's attached value) as a word of its own.
// An attached value starting with ~ is tilde-expanded by bash only after "=", which the
// caller decides; here it keeps the word's flags.
func subWord(w Word, val string) Word {
	s := w
	s.Value = val
	s.Src = val
	s.Tilde = NoTilde
	if name, rest, ok := strings.Cut(w.Value, "="); ok && rest == val && nameRE().MatchString(name) && strings.HasPrefix(val, "~") {
		// bash expands ~ after the = of an argument that looks like an assignment (DIR=~/x),
		// not after --dir=.
		s.Tilde = tildeKind(val, true)
	}
	return s
}

func hasOpt(opts []opt, names ...string) bool {
	for _, o := range opts {
		if contains(names, o.name) {
			return true
		}
	}
	return false
}

func optVals(opts []opt, names ...string) []Word {
	var out []Word
	for _, o := range opts {
		if o.has && contains(names, o.name) {
			out = append(out, o.val)
		}
	}
	return out
}

// expandLong resolves an abbreviated long option the way GNU getopt does: a unique prefix of
// one of the options names it (sort --outp=x is --output=x). An exact name wins; an ambiguous
// prefix is left as written, since the program refuses it.
func expandLong(long []string, name string) string {
	if len(name) < 2 {
		return name
	}
	return uniquePrefix(long, name)
}

// uniquePrefix is the one of names that w names: w itself when it is one of them, else the
// only one it is a prefix of. Otherwise (no match, or an ambiguous prefix) it is w as written.
func uniquePrefix(names []string, w string) string {
	if contains(names, w) {
		return w
	}
	found := ""
	for _, n := range names {
		if strings.HasPrefix(n, w) {
			if found != "" {
				return w
			}
			found = n
		}
	}
	if found == "" {
		return w
	}
	return found
}

// kbSpecs are the optSpecs of the programs whose knowledge-base entries are complete, so that
// which options take a value is said once. Only a complete entry will do: an option that the
// spec wrongly says takes a value would hide the path after it.
var kbSpecs = sync.OnceValue(func() map[string]optSpec {
	out := map[string]optSpec{}
	for _, e := range knowledge.Builtin().Programs() {
		if e.Partial || len(e.Subcommands()) > 0 {
			continue
		}
		spec := specOf(e)
		for _, n := range e.Names {
			out[n] = spec
		}
	}
	return out
})

// specOf is the optSpec an entry's options give: which take a value that must follow.
func specOf(e *knowledge.Command) optSpec {
	var spec optSpec
	for _, o := range e.Options {
		for _, sp := range o.Spellings {
			if o.ArityOf(sp) != knowledge.Required {
				continue
			}
			if strings.HasPrefix(sp, "--") {
				spec.long = append(spec.long, sp[2:])
			} else if len(sp) == 2 {
				spec.value += sp[1:]
			}
		}
	}
	spec.posix = e.Posix
	return spec
}

// kbSpec is the optSpec of a program with a complete entry; a missing one is a programming
// error caught by the first test that reads the program's paths.
func kbSpec(name string) optSpec {
	spec, ok := kbSpecs()[name]
	if !ok {
		panic("bashrules: no complete knowledge-base entry for " + name)
	}
	return spec
}
