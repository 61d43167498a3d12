package bashrules

import (
	"path"
	"strings"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// Roles, not lists: an option whose knowledge-base entry types its value as a file — written
// (write), read (read), a file of more file names (list), a backup suffix that becomes part of
// the names written (suffix), or data that names a file when it starts with @ (at) — is a
// write or read of that name through the path checks, for every program with an entry, found
// by its type rather than by a list of programs; so is a response file (@FILE, flags atfile).
// An allow rule covers such an option (the file meets the Read and Edit checks instead); what
// a list or a response file names, the analysis cannot see.

// kbPathUses adds to uses the files the typed options of a command name, skipping those the
// program's own path code already found.
func kbPathUses(name string, args []Word, uses []pathUse) []pathUse {
	e, ok := knowledge.Facts(name)
	if !ok || !e.HasTypedValues() {
		return uses
	}
	var kbuf [8]knowledge.Arg
	p := parsedPool.Get().(*knowledge.Parsed)
	defer parsedPool.Put(p)
	e.ParseInto(kbArgs(args, kbuf[:]), p)
	for _, u := range p.Uses {
		eff := u.Opt.Effects
		if eff&knowledge.List != 0 && !u.HasValue {
			// The files it reads are named in its input (objdump -S: the sources its debug
			// information names).
			uses = addUse(uses, pathUse{w: Word{Src: "(files " + args[u.Word].Src + " reads)", Why: "files named in the input of " + u.Spelling}, acc: accRead})
			continue
		}
		if !eff.Names() || !u.HasValue {
			continue
		}
		w := valueWord(args, u)
		switch {
		case eff&knowledge.At != 0:
			if w.Known && strings.HasPrefix(w.Value, "@") && w.Value != "@-" {
				f := subWord(w, w.Value[1:])
				uses = addUse(uses, pathUse{w: f, acc: accRead})
			} else if !w.Known {
				uses = addUse(uses, pathUse{w: w, acc: accRead})
			}
			continue
		case eff&knowledge.Suffix != 0:
			uses = suffixUses(uses, w, p.Operands, args)
			continue
		case eff&knowledge.Mount != 0:
			if src, ok := mountSource(w); ok {
				uses = addUse(uses, pathUse{w: src, acc: accWrite})
				uses = addUse(uses, pathUse{w: src, acc: accReadTree})
			}
			continue
		}
		if eff&knowledge.Pipe != 0 && strings.HasPrefix(strings.TrimSpace(w.Value), "|") {
			continue // a command line, which the exec-family check asks about
		}
		if eff&knowledge.Write != 0 && !isStdin(w) {
			uses = addUse(uses, pathUse{w: w, acc: accWrite})
		}
		if eff&(knowledge.Read|knowledge.List) != 0 && !isStdin(w) {
			uses = addUse(uses, pathUse{w: w, acc: accRead})
		}
		if eff&knowledge.List != 0 {
			uses = addUse(uses, pathUse{w: Word{Src: "(files " + w.Src + " lists)", Why: "files named in " + w.Src}, acc: accRead})
		}
	}
	for _, i := range p.AtFiles {
		w := args[i]
		uses = addUse(uses, pathUse{w: subWord(w, w.Value[1:]), acc: accRead})
		// What the response file holds are more arguments: files and options the analysis
		// does not see.
		uses = addUse(uses, pathUse{w: Word{Src: "(arguments " + w.Src + " holds)", Why: "arguments read from " + w.Src}, acc: accRead})
	}
	return uses
}

// mountSource is the host path a mount binds (-v SRC:DST, --mount type=bind,source=SRC), if
// it names one: a path (starting with /, . or ~), not a volume's name. A value only known
// when it runs may be any path.
func mountSource(w Word) (Word, bool) {
	if !w.Known {
		return w, true
	}
	v := w.Value
	src := v
	if strings.Contains(v, "=") {
		src = ""
		for _, kv := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(kv, "=")
			if k == "source" || k == "src" {
				src = val
			}
		}
	} else if i := strings.IndexByte(v, ':'); i >= 0 {
		src = v[:i]
	}
	if src == "" || !strings.ContainsAny(src[:1], "/.~") {
		return Word{}, false
	}
	return subWord(w, src), true
}

// valueWord is the word an option's value is: the next word, or the attached value as a word
// of its own (--output=x, -ox).
func valueWord(args []Word, u knowledge.Use) Word {
	if u.ValueArg >= 0 {
		return args[u.ValueArg]
	}
	return subWord(args[u.Word], u.Value)
}

// suffixUses adds the backups a suffix option names: each operand with the suffix appended,
// or, for a suffix with * (sed -i'bak/*'), the operand's base name put in its place.
func suffixUses(uses []pathUse, suffix Word, operands []int, args []Word) []pathUse {
	for _, i := range operands {
		op := args[i]
		if !op.Known || !suffix.Known {
			uses = addUse(uses, pathUse{w: Word{Src: op.Src + suffix.Src, Why: "a backup name only known when it runs"}, acc: accWrite})
			continue
		}
		names := []string{op.Value + suffix.Value}
		if strings.Contains(suffix.Value, "*") {
			b := strings.ReplaceAll(suffix.Value, "*", path.Base(op.Value))
			names = []string{b, path.Join(path.Dir(op.Value), b)}
		}
		for _, n := range names {
			w := op
			w.Value, w.Src = n, n
			uses = addUse(uses, pathUse{w: w, acc: accWrite})
		}
	}
	return uses
}

// addUse appends u unless uses already holds the same path with the same access.
func addUse(uses []pathUse, u pathUse) []pathUse {
	for _, x := range uses {
		if x.acc == u.acc && x.w.Known == u.w.Known && x.w.Value == u.w.Value && x.w.Src == u.w.Src {
			return uses
		}
	}
	return append(uses, u)
}
