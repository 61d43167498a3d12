package bashrules

import (
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// The read-only set's option lists live in the knowledge base (knowledge/programs/*.kb,
// entries flagged readonly): an option the entry does not list makes the command not
// read-only, since an unknown option may be one that writes or runs something (sed --in-pl is
// --in-place, sort --outp is --output). knowledge's TestEntriesMatchHelp checks the entries
// against each installed program's --help.

// kbArgs is a command's words as the knowledge base reads them, in buf when they fit.
func kbArgs(args []Word, buf []knowledge.Arg) []knowledge.Arg {
	out := buf[:0]
	for _, a := range args {
		out = append(out, knowledge.Arg{Value: a.Value, Known: a.Known})
	}
	return out
}

// unknownOption says why a command's options are not all known to its entry, or "".
func unknownOption(e *knowledge.Command, args []Word) string {
	var buf [8]knowledge.Arg
	u, ok := e.FirstUnknown(kbArgs(args, buf[:]))
	if !ok {
		return ""
	}
	if strings.HasSuffix(u.Why, " is not known") {
		return u.Why + " to be read-only"
	}
	return u.Why
}

// tableRO is the read-only check of a command with option table t, followed by the
// command's own check.
func tableRO(name string, e *knowledge.Command, next roFunc) roFunc {
	return func(args []Word) string {
		if why := unknownOption(e, args); why != "" {
			return name + " " + why
		}
		if why := next(args); why != "" {
			return why
		}
		return changingOption(name, e, args)
	}
}

// notReadOnly are the effects that keep a command out of the read-only set, whatever its own
// check says: an option that writes, runs, changes the system, reads more options or reads a
// list of files the analysis does not see (file -f).
const notReadOnly = knowledge.Write | knowledge.Exec | knowledge.Program | knowledge.Options | knowledge.Suffix |
	knowledge.Mount | knowledge.State | knowledge.Pipe | knowledge.List

// changingOption says which option of the command its entry types as more than reading, or "".
func changingOption(name string, e *knowledge.Command, args []Word) string {
	var kbuf [8]knowledge.Arg
	p := parsedPool.Get().(*knowledge.Parsed)
	defer parsedPool.Put(p)
	e.ParseInto(kbArgs(args, kbuf[:]), p)
	for _, u := range p.Uses {
		if u.Opt.Effects&notReadOnly != 0 {
			return name + " " + u.Spelling + " " + readOnlyWhy(u.Opt.Effects)
		}
	}
	for _, i := range p.AtFiles {
		return name + " " + args[i].Value + " reads more arguments from a response file"
	}
	return ""
}

func readOnlyWhy(e knowledge.Effect) string {
	switch {
	case e&knowledge.State != 0:
		return "changes the system"
	case e.Dangerous() || e&knowledge.Pipe != 0:
		return "runs code or a program"
	case e&knowledge.List != 0:
		return "reads a list of files the analysis does not see"
	}
	return "writes files"
}

// readOnlyCommands is the read-only set, built on first use from the entries flagged readonly:
// each name with its registered read-only code (anyArgs when it has none) behind the check of
// its entry's options, where the entry is an option table. Every entry is complete, so an option its entry
// does not know keeps a command out of the set, whatever the command's own check says.
var readOnlyCommands = sync.OnceValue(func() map[string]roFunc {
	ro := map[string]roFunc{}
	for _, e := range knowledge.Builtin().Programs() {
		if !e.ReadOnly {
			continue
		}
		for _, name := range readOnlyNames(e) {
			next := anyArgs
			if f := readOnlyCode(name); f != nil {
				next = f
			}
			if t, ok := knowledge.Lookup(name); ok {
				next = tableRO(name, t, next)
			}
			ro[name] = next
		}
	}
	return ro
})

// readOnlyNames are the names under which a readonly entry joins the set: every name, unless
// read-only code is registered for some, when exactly those do (a registration covers the
// name it gives: awk's code is awk's, not gawk's; node's version check is not nodejs's).
func readOnlyNames(e *knowledge.Command) []string {
	var coded []string
	for _, n := range e.Names {
		if readOnlyCode(n) != nil {
			coded = append(coded, n)
		}
	}
	if coded != nil {
		return coded
	}
	return e.Names
}
