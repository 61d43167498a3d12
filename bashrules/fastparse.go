package bashrules

import "mvdan.cc/sh/v3/syntax"

// fastParse builds, for the plainest command lines, the very syntax tree the parser builds, in
// a fraction of its time: simple commands of plain words (letters, digits and _./:@%+,=-)
// separated by spaces and joined by &&, ||, | and ;. A command's first word must not be a
// reserved or declaration word nor hold "=". It returns nil for anything else, which the
// parser then decides. TestPropertyFastParseIsTheParser checks that whatever it accepts, the
// parser accepts too, into a deeply equal tree. The tree is cut from nodes's arrays: fresh
// ones when nodes is new, or those of the tree built before with them, which it overwrites.
func fastParse(src string, nodes *fastNodes) *syntax.File {
	if len(src) == 0 || len(src) > fastParseMax {
		return nil
	}
	// The first pass checks the grammar and counts what the tree needs, so that the second
	// allocates each kind of node once.
	var words, cmds, bins, stmts int
	expectWord := true // at the start of a command
	inCmd := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ':
			i++
		case plainByte(c):
			j := i + 1
			for j < len(src) && plainByte(src[j]) {
				j++
			}
			if !inCmd {
				if reservedFirst(src[i:j]) {
					return nil
				}
				cmds++
				inCmd = true
			}
			words++
			expectWord = false
			i = j
		case c == '&' || c == '|':
			if expectWord {
				return nil
			}
			if i+1 < len(src) && src[i+1] == c {
				i += 2
			} else if c == '|' && (i+1 >= len(src) || src[i+1] != '&') {
				i++
			} else {
				return nil // a lone & (background) or |&
			}
			bins++
			expectWord, inCmd = true, false
		case c == ';':
			if expectWord {
				return nil
			}
			stmts++
			i++
			expectWord, inCmd = true, false
			// Only spaces may follow a last ;, or another command.
			k := i
			for k < len(src) && src[k] == ' ' {
				k++
			}
			if k < len(src) && !plainByte(src[k]) {
				return nil
			}
			if k == len(src) {
				expectWord = false // a trailing ; ends the list
			}
		default:
			return nil
		}
	}
	if expectWord || cmds == 0 {
		return nil
	}
	if inCmd {
		stmts++ // the last statement has no ;
	}

	nodes.lits = grow(nodes.lits, words)
	nodes.words = grow(nodes.words, words)
	nodes.parts = grow(nodes.parts, words)
	nodes.args = grow(nodes.args, words)
	nodes.calls = grow(nodes.calls, cmds)
	nodes.bins = grow(nodes.bins, bins)
	nodes.stmts = grow(nodes.stmts, cmds+bins)
	top := grow(nodes.top, stmts)[:0]
	b := fastBuilder{src: src, fastNodes: nodes}

	var list, pipe *syntax.Stmt // the && || list and the pipeline being built
	var listOp, pipeOp syntax.BinCmdOperator
	var listOpAt, pipeOpAt int
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ':
			i++
		case plainByte(c):
			cmd, j := b.command(i)
			i = j
			if pipe == nil {
				pipe = cmd
			} else {
				pipe = b.binary(pipeOp, pipeOpAt, pipe, cmd)
			}
		case c == '|' && (i+1 >= len(src) || src[i+1] != '|'):
			pipeOp, pipeOpAt = syntax.Pipe, i
			i++
		default: // &&, || or ;: the pipeline is complete
			if list == nil {
				list = pipe
			} else {
				list = b.binary(listOp, listOpAt, list, pipe)
			}
			pipe = nil
			if c == ';' {
				list.Semicolon = pos(i)
				top = append(top, list)
				list = nil
				i++
				continue
			}
			listOp, listOpAt = syntax.AndStmt, i
			if c == '|' {
				listOp = syntax.OrStmt
			}
			i += 2
		}
	}
	if pipe != nil {
		if list == nil {
			list = pipe
		} else {
			list = b.binary(listOp, listOpAt, list, pipe)
		}
		top = append(top, list)
	}
	nodes.top = top
	if nodes.file == nil {
		nodes.file = new(syntax.File)
	}
	*nodes.file = syntax.File{Stmts: top}
	return nodes.file
}

// fastNodes are the arrays fastParse cuts a tree's nodes from. The walker keeps no node past
// its walk, so Check's reused checkers hand them from one decision to the next; every node
// handed out is set whole.
type fastNodes struct {
	lits  []syntax.Lit
	words []syntax.Word
	parts []syntax.WordPart
	args  []*syntax.Word
	calls []syntax.CallExpr
	bins  []syntax.BinaryCmd
	stmts []syntax.Stmt
	top   []*syntax.Stmt
	file  *syntax.File
}

// grow returns s with length n, reusing its array when it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// fastParseMax bounds the sources fastParse takes: positions stay on one line, well within the
// columns a position holds.
const fastParseMax = 4096

// plainByte reports the bytes of fastParse's words: none is special to bash in any position
// (a "=" in a command's first word is, and fastParse sees to it).
func plainByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '.' || c == '/' || c == ':' || c == '@' || c == '%' || c == '+' || c == ',' || c == '=' || c == '-'
}

// reservedFirst reports a first word that is not a plain command name for the parser: an
// assignment, or a word that starts another kind of statement.
func reservedFirst(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] == '=' {
			return true
		}
	}
	switch w {
	case "if", "then", "elif", "else", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in",
		"function", "time", "coproc", "declare", "local", "export", "readonly", "typeset", "nameref", "let":
		return true
	}
	return false
}

func pos(offset int) syntax.Pos { return syntax.NewPos(uint(offset), 1, uint(offset)+1) }

// fastBuilder hands out the nodes of one tree from arrays allocated once.
type fastBuilder struct {
	*fastNodes
	src            string
	nw, nc, nb, ns int
}

// command builds the simple command whose first word starts at i, and returns its statement
// and where its words end.
func (b *fastBuilder) command(i int) (*syntax.Stmt, int) {
	first := b.nw
	for i < len(b.src) && b.src[i] != '&' && b.src[i] != '|' && b.src[i] != ';' {
		if b.src[i] == ' ' {
			i++
			continue
		}
		j := i + 1
		for j < len(b.src) && plainByte(b.src[j]) {
			j++
		}
		n := b.nw
		b.nw++
		b.lits[n] = syntax.Lit{ValuePos: pos(i), ValueEnd: pos(j), Value: b.src[i:j]}
		b.parts[n] = &b.lits[n]
		b.words[n] = syntax.Word{Parts: b.parts[n : n+1 : n+1]}
		b.args[n] = &b.words[n]
		i = j
	}
	call := &b.calls[b.nc]
	b.nc++
	*call = syntax.CallExpr{Args: b.args[first:b.nw:b.nw]}
	st := &b.stmts[b.ns]
	b.ns++
	*st = syntax.Stmt{Cmd: call, Position: b.lits[first].ValuePos}
	return st, i
}

// binary joins x and y with the operator at offset at, as the parser does: on the left.
func (b *fastBuilder) binary(op syntax.BinCmdOperator, at int, x, y *syntax.Stmt) *syntax.Stmt {
	bin := &b.bins[b.nb]
	b.nb++
	*bin = syntax.BinaryCmd{OpPos: pos(at), Op: op, X: x, Y: y}
	st := &b.stmts[b.ns]
	b.ns++
	*st = syntax.Stmt{Cmd: bin, Position: x.Position}
	return st
}
