package cmdline

import "mvdan.cc/sh/v3/syntax"

// ForVar is the variable of a for loop over words and the words, as written and brace
// expanded (globs are expanded by whoever uses them).
type ForVar struct {
	Name string
	// Items are nil with Why set when the list cannot be followed ("for f; do", braces too
	// large).
	Items []Word
	Why   string
	// Assign is the loop's own KindAssign command: any other command that sets the name
	// makes its values unknown.
	Assign *Command
	Outer  *ForVar
}

// Lookup is the innermost loop variable called name around fv's place, or nil.
func (fv *ForVar) Lookup(name string) *ForVar {
	for f := fv; f != nil; f = f.Outer {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// forVar is the variable of the loop l, whose assignment is c, inside outer.
func (w *walker) forVar(l *syntax.WordIter, c *Command, outer *ForVar) *ForVar {
	fv := &ForVar{Name: l.Name.Value, Assign: c, Outer: outer}
	if !l.InPos.IsValid() {
		fv.Why = "for " + fv.Name + " loops over the script's arguments"
		return fv
	}
	vals := make([]Word, len(l.Items))
	for i, it := range l.Items {
		vals[i] = evalWord(w.src, it)
	}
	items, err := expandArgv(l.Items, vals)
	if err != nil {
		fv.Why = "for " + fv.Name + ": " + err.Error()
		return fv
	}
	fv.Items = items
	return fv
}
