package cmdline

// The walker's simple commands, their words and the scripts nested in them (pipes into a
// shell, -c scripts, eval): the second half of the parse, split from analyze.go by size.

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// call records a simple command and the commands it runs.
func (w *walker) call(x *syntax.CallExpr, sc scope, redirs []*Redirect) *Command {
	for _, as := range x.Assigns {
		w.assignWalk(as, sc)
	}
	for _, wd := range x.Args {
		w.word(wd, sc)
	}
	c := w.newCommand(KindCall, x, sc)
	c.Redirects = redirs
	for _, as := range x.Assigns {
		c.Assigns = append(c.Assigns, w.assignment(as))
	}
	if len(x.Args) > 0 {
		c.Words = w.words(len(x.Args))
		for i, wd := range x.Args {
			c.Words[i] = evalWord(w.src, wd)
		}
	}
	c.Text = callText(srcOf(w.src, x), c.Assigns, c.Words)
	if len(x.Args) == 0 {
		c.Kind = KindAssign
		w.add(c)
		return nil
	}
	argv, err := expandArgv(x.Args, c.Words)
	if err != nil {
		c.Issues = append(c.Issues, err.Error())
	}
	c.Argv = argv
	if name, ok := c.Name(); ok {
		if pos, def := w.funcs[name]; def && pos < c.Start && !sc.fixed {
			c.Kind = KindFuncCall
		}
	}
	w.add(c)
	if c.Kind == KindCall {
		w.unwrap(c, sc)
	}
	return c
}

// callText is the assignments' and words' source joined by single spaces: span (the
// command's own source) when that is what it is, else built in one allocation.
func callText(span string, assigns []Assignment, words []Word) string {
	if spanJoins(span, assigns, words) {
		return span
	}
	n := -1
	for _, a := range assigns {
		n += len(a.Src) + 1
	}
	for _, wd := range words {
		n += len(wd.Src) + 1
	}
	if n < 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(n)
	first := true
	sep := func() {
		if !first {
			b.WriteByte(' ')
		}
		first = false
	}
	for _, a := range assigns {
		sep()
		b.WriteString(a.Src)
	}
	for _, wd := range words {
		sep()
		b.WriteString(wd.Src)
	}
	return b.String()
}

// spanJoins reports whether s is the assignments' and words' source joined by single spaces.
func spanJoins(s string, assigns []Assignment, words []Word) bool {
	first := true
	next := func(piece string) bool {
		if !first {
			if s == "" || s[0] != ' ' {
				return false
			}
			s = s[1:]
		}
		first = false
		if !strings.HasPrefix(s, piece) {
			return false
		}
		s = s[len(piece):]
		return true
	}
	for _, a := range assigns {
		if !next(a.Src) {
			return false
		}
	}
	for _, wd := range words {
		if !next(wd.Src) {
			return false
		}
	}
	return s == ""
}

// expandArgv applies brace expansion, which bash does before anything else: {rm,-rf,/} is
// the command rm -rf /.
func expandArgv(words []*syntax.Word, vals []Word) ([]Word, error) {
	if !slices.ContainsFunc(words, hasBrace) {
		return vals, nil // the argv is the words, as for a declaration
	}
	// Kept apart: the range over a function makes the variables it uses escape, which
	// would cost every call allocations, braces or not.
	return expandBraces(words, vals)
}

func expandBraces(words []*syntax.Word, vals []Word) ([]Word, error) {
	out := make([]Word, 0, len(vals))
	for i, wd := range words {
		if !hasBrace(wd) {
			out = append(out, vals[i])
			continue
		}
		cp := &syntax.Word{Parts: slices.Clone(wd.Parts)}
		if !syntax.SplitBraces(cp) {
			out = append(out, vals[i])
			continue
		}
		for ew, err := range expand.BracesSeq(nil, cp) {
			if err != nil {
				return nil, fmt.Errorf("brace expansion too large to follow")
			}
			if len(out) >= maxArgv {
				return nil, fmt.Errorf("brace expansion produces more than %d words", maxArgv)
			}
			v := evalWord("", ew)
			if v.Known {
				v.Src = QuoteWord(v.Value)
			} else {
				v.Src = vals[i].Src
			}
			out = append(out, v)
		}
	}
	return out, nil
}

func hasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsRune(l.Value, '{') {
			return true
		}
	}
	return false
}

// word looks inside a word for commands (command and process substitutions) and for
// expansions that evaluate text as arithmetic, which can run commands hidden in a variable.
func (w *walker) word(wd *syntax.Word, sc scope) {
	if wd == nil {
		return
	}
	for _, p := range wd.Parts {
		w.part(p, sc)
	}
}

func (w *walker) part(p syntax.WordPart, sc scope) {
	switch p := p.(type) {
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			w.part(q, sc)
		}
	case *syntax.ParamExp:
		w.param(p, sc)
	case *syntax.CmdSubst:
		sub := sc
		sub.Subshell = true
		sub.nested = nest(sc.nested, "$(...)")
		w.stmts(p.Stmts, sub)
	case *syntax.ProcSubst:
		sub := sc
		sub.Subshell = true
		sub.nested = nest(sc.nested, p.Op.String()+"...)")
		w.stmts(p.Stmts, sub)
	case *syntax.ArithmExp:
		w.arith(p.X, sc)
	}
}

func (w *walker) param(p *syntax.ParamExp, sc scope) {
	name := paramName(p)
	switch {
	case p.Excl && p.Names == 0:
		w.issue("indirect expansion ${!%s} can run commands hidden in a variable", name)
	case p.NestedParam != nil:
		w.issue("nested parameter expansion")
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && p.Exp.Word.Lit() == "P":
		// Prompt expansion expands the value as a prompt string: its command substitutions
		// run. @E (escapes), @A (a declaration), @Q and the rest only transform text.
		w.issue("prompt expansion ${%s@P} runs the command substitutions in a variable's value", name)
	}
	if p.Index != nil {
		w.arith(p.Index, sc)
	}
	if p.Slice != nil {
		if p.Slice.Offset != nil {
			w.arith(p.Slice.Offset, sc)
		}
		if p.Slice.Length != nil {
			w.arith(p.Slice.Length, sc)
		}
	}
	if p.Exp != nil {
		w.word(p.Exp.Word, sc)
	}
	if p.Repl != nil {
		w.word(p.Repl.Orig, sc)
		w.word(p.Repl.With, sc)
	}
}

var numericRE = LazyRE(`^([0-9]+|0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+)$`)

// arith checks an arithmetic expression. Bash evaluates the value of every variable named in
// one as arithmetic again, array subscripts included, so a value such as a[$(cmd)] runs cmd:
// only plain numbers are safe.
func (w *walker) arith(e syntax.ArithmExpr, sc scope) {
	switch e := e.(type) {
	case *syntax.Word:
		w.word(e, sc)
		if lit := e.Lit(); lit == "" || !numericRE().MatchString(lit) {
			w.issue("arithmetic on %q evaluates a value that can run commands", srcOf(w.src, e))
		}
	case *syntax.BinaryArithm:
		w.arith(e.X, sc)
		w.arith(e.Y, sc)
	case *syntax.UnaryArithm:
		w.arith(e.X, sc)
	case *syntax.ParenArithm:
		w.arith(e.X, sc)
	case *syntax.FlagsArithm:
		if e.X != nil {
			w.arith(e.X, sc)
		}
	}
}

var nameRE = LazyRE(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (w *walker) test(e syntax.TestExpr, sc scope) {
	switch e := e.(type) {
	case *syntax.Word:
		w.word(e, sc)
	case *syntax.BinaryTest:
		w.test(e.X, sc)
		w.test(e.Y, sc)
		switch e.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, side := range []syntax.TestExpr{e.X, e.Y} {
				if wd, ok := side.(*syntax.Word); !ok || !numericRE().MatchString(wd.Lit()) {
					w.issue("arithmetic comparison in [[ ]] evaluates a value that can run commands")
				}
			}
		}
	case *syntax.UnaryTest:
		w.test(e.X, sc)
		if e.Op == syntax.TsVarSet || e.Op == syntax.TsRefVar {
			if wd, ok := e.X.(*syntax.Word); !ok || !nameRE().MatchString(wd.Lit()) {
				w.issue("[[ -v ]] on an array element evaluates a subscript that can run commands")
			}
		}
	case *syntax.ParenTest:
		w.test(e.X, sc)
	}
}

// linkPipe records, for a | b where both ends are simple commands, that b reads a's output.
func (w *walker) linkPipe(x *syntax.BinaryCmd, first, mid int, sc scope) {
	if sc.fixed {
		return // inside an inner script every command takes its parent's position
	}
	prod := lastPiped(x.X)
	if prod == nil {
		return
	}
	if _, ok := x.Y.Cmd.(*syntax.CallExpr); !ok {
		return
	}
	find := func(cs []*Command, st *syntax.Stmt) *Command {
		for _, c := range cs {
			if c.Kind == KindCall && c.Parent == sc.parent && !c.Speculative && c.Start == int(st.Pos().Offset()) {
				return c
			}
		}
		return nil
	}
	p, q := find(w.a.Commands[first:mid], prod), find(w.a.Commands[mid:], x.Y)
	if p != nil && q != nil {
		q.PipedFrom = p
	}
}

// lastPiped is the last simple command of a pipeline.
func lastPiped(s *syntax.Stmt) *syntax.Stmt {
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return lastPiped(c.Y)
		}
	case *syntax.CallExpr:
		return s
	}
	return nil
}

// pipedScript handles a shell that reads its script from a pipe. When the pipe's source is
// echo or printf of literal text, that text is analysed speculatively, so that deny and ask
// rules still see echo 'rm -rf x' | bash.
func (w *walker) pipedScript(x *syntax.BinaryCmd, first, mid int, sc scope) {
	if mid >= len(w.a.Commands) || first >= mid {
		return
	}
	shell := w.a.Commands[mid]
	if !shell.ReadsStdin {
		return
	}
	if _, ok := x.X.Cmd.(*syntax.CallExpr); !ok {
		return
	}
	src := w.a.Commands[first]
	name, _ := src.Name()
	if (name != "echo" && name != "printf") || len(src.Argv) < 2 {
		return
	}
	var vals []string
	for _, a := range src.Argv[1:] {
		if !a.Known {
			return
		}
		if !strings.HasPrefix(a.Value, "-") || len(vals) > 0 {
			vals = append(vals, a.Value)
		}
	}
	w.script(shell, strings.Join(vals, " "), "piped script", sc, true, false)
}

// script analyses a script that parent runs (bash -c, eval, watch, a here-document fed to a
// shell). It reports whether the script parsed.
func (w *walker) script(parent *Command, src, via string, sc scope, speculative, sameShell bool) bool {
	if !w.enter() {
		return false
	}
	defer w.leave()
	f, err := Parse(src)
	if err != nil {
		return false
	}
	in := &walker{a: w.a, src: src, funcs: map[string]int{}, depth: w.depth}
	if sameShell {
		in.funcs = w.funcs
	}
	isc := scope{Where: parent.Where, nested: nest(parent.Nested, via), parent: parent, via: via,
		speculative: speculative || parent.Speculative, fixed: true, otherDir: parent.OtherDir}
	isc.Script = true
	isc.Subshell = isc.Subshell || !sameShell
	in.stmts(f.Stmts, isc)
	return true
}
