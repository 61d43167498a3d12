package bash

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// exitMeaning is what a non-zero exit status means for some commands whose status 1 is an
// answer, not a failure. Keyed on the first word of the last command, as Claude Code does.
var exitMeaning = map[string]string{
	"grep": "No matches found",
	"rg":   "No matches found",
	"find": "Some directories were inaccessible",
	"diff": "Files differ",
	"test": "Condition is false",
	"[":    "Condition is false",
}

// interpretExit says whether exit status code of command is an error, and what a non-error
// non-zero status means.
func interpretExit(command string, code int) (isError bool, meaning string) {
	if code == 0 {
		return false, ""
	}
	if code == 1 {
		if m, ok := exitMeaning[lastCommandWord(command)]; ok {
			return false, m
		}
	}
	return true, ""
}

// lastCommandWord returns the name of the command whose status the shell returns: the last
// simple command of the last statement, through &&, || and pipes. It is "" when that is not a
// plain word (a subshell, a loop, an expansion).
func lastCommandWord(command string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return lastWordFallback(command)
	}
	if len(f.Stmts) == 0 {
		return ""
	}
	cmd := f.Stmts[len(f.Stmts)-1].Cmd
	for {
		switch c := cmd.(type) {
		case *syntax.BinaryCmd:
			cmd = c.Y.Cmd
		case *syntax.CallExpr:
			if len(c.Args) == 0 {
				return ""
			}
			return filepath.Base(c.Args[0].Lit())
		default:
			return ""
		}
	}
}

// lastWordFallback splits a command the parser rejected on the usual operators.
func lastWordFallback(command string) string {
	last := command
	for _, op := range []string{"\n", ";", "&&", "||", "|"} {
		if i := strings.LastIndex(last, op); i >= 0 {
			last = last[i+len(op):]
		}
	}
	fields := strings.Fields(last)
	if len(fields) == 0 {
		return ""
	}
	return filepath.Base(fields[0])
}
