package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// MaxPrompt bounds an expanded prompt: a body of many $ARGUMENTS with long arguments, or large
// includes, is refused rather than sent.
const MaxPrompt = 1 << 20

// Host does what a command's body asks for before its prompt is sent. Each method is one tool
// call through the caller's call pipeline: decided by the engine (with the command's rules
// added), asked about when the engine asks, refused when it denies. A returned error stops the
// command; its text is the reason, for the person.
type Host interface {
	// Read returns what the Read tool gives for path (relative to the working directory).
	Read(ctx context.Context, path string) (string, error)
	// Bash runs command as the Bash tool does and returns its output.
	Bash(ctx context.Context, command string) (string, error)
}

// StopError is a command stopped by a refused (or failed) @file or !`cmd`.
type StopError struct {
	Command string
	File    string
	Line    int
	// What is the include or the command line, as written after the arguments went in.
	What   string
	Reason string
	// Err is what the host returned.
	Err error
}

func (e *StopError) Unwrap() error { return e.Err }

func (e *StopError) Error() string {
	return fmt.Sprintf("/%s stopped at %s:%d (%s): %s", e.Command, e.File, e.Line, e.What, e.Reason)
}

// Expand turns the command's body into the prompt for args. Arguments are split as a shell
// splits words (see [SplitArgs]); $ARGUMENTS is the whole argument text, $1…$9 the words
// ($N past the last word is empty). A body without a placeholder gets non-empty arguments
// appended as "ARGUMENTS: …", as Claude Code does, so they are never lost.
//
// The body is scanned for @file and !`cmd` before arguments go in: an "@" or "!`" that an
// argument brings is text, never an include or a command. Arguments do go into the path of
// an @file and the text of a !`cmd` written in the body ("!`git log $1`"); those are then
// decided by the engine as any call.
func (c *Command) Expand(ctx context.Context, args string, h Host) (string, error) {
	words, err := SplitArgs(args)
	if err != nil {
		return "", fmt.Errorf("/%s: %w", c.Name, err)
	}
	e := &expander{c: c, h: h, args: strings.TrimSpace(args), words: words}
	for i, line := range strings.SplitAfter(c.Body, "\n") {
		if err := e.line(ctx, c.BodyLine+i, line); err != nil {
			return "", err
		}
	}
	if !e.placeholder && e.args != "" {
		e.write("\n\nARGUMENTS: " + e.args)
	}
	if e.tooLarge {
		return "", fmt.Errorf("/%s: the expanded prompt is larger than %d bytes", c.Name, MaxPrompt)
	}
	return e.out.String(), nil
}

type expander struct {
	c           *Command
	h           Host
	args        string
	words       []string
	out         strings.Builder
	placeholder bool // the body used $ARGUMENTS or $N
	tooLarge    bool
}

func (e *expander) write(s string) {
	if e.tooLarge || e.out.Len()+len(s) > MaxPrompt {
		e.tooLarge = true
		return
	}
	e.out.WriteString(s)
}

// line expands one line of the body: text, !`cmd` spans and @file tokens, in order.
func (e *expander) line(ctx context.Context, n int, line string) error {
	for line != "" {
		if e.tooLarge {
			return nil
		}
		i, kind := nextSpecial(line)
		e.write(e.subst(line[:i]))
		line = line[i:]
		switch kind {
		case bang:
			end := strings.IndexByte(line[2:], '`') + 2
			cmd := strings.TrimSpace(e.subst(line[2:end]))
			line = line[end+1:]
			out, err := e.h.Bash(ctx, cmd)
			if err != nil {
				return e.stop(ctx, n, "!`"+cmd+"`", err)
			}
			e.write(out)
		case at:
			end := strings.IndexAny(line, " \t\r\n")
			if end < 0 {
				end = len(line)
			}
			path := e.subst(line[1:end])
			line = line[end:]
			text, err := e.h.Read(ctx, path)
			if err != nil {
				return e.stop(ctx, n, "@"+path, err)
			}
			e.write("@" + path + "\n<file path=\"" + path + "\">\n" + text + "\n</file>")
		}
	}
	return nil
}

// stop is the command's end at line n; a cancelled run is the run's end, not the command's.
func (e *expander) stop(ctx context.Context, n int, what string, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return &StopError{Command: e.c.Name, File: e.c.File, Line: n, What: what, Reason: err.Error(), Err: err}
}

type special int

const (
	none special = iota
	bang
	at
)

// nextSpecial finds the first !`…` span closed on the same line, or @ token (at the start of
// the line or after a blank, followed by a path), in line.
func nextSpecial(line string) (int, special) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '!':
			if strings.HasPrefix(line[i+1:], "`") && strings.IndexByte(line[i+2:], '`') >= 0 {
				return i, bang
			}
		case '@':
			if (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') && i+1 < len(line) && !strings.ContainsRune(" \t\r\n", rune(line[i+1])) {
				return i, at
			}
		}
	}
	return len(line), none
}

// subst puts the arguments into a span of the body's text.
func (e *expander) subst(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "$ARGUMENTS"):
			e.placeholder = true
			b.WriteString(e.args)
			s = s[len("$ARGUMENTS"):]
		case len(s) > 1 && s[1] >= '1' && s[1] <= '9':
			e.placeholder = true
			if k := int(s[1] - '1'); k < len(e.words) {
				b.WriteString(e.words[k])
			}
			s = s[2:]
		default:
			b.WriteByte('$')
			s = s[1:]
		}
		if b.Len() > MaxPrompt {
			e.tooLarge = true
			return ""
		}
	}
}

// SplitArgs splits arguments into words as a shell does, without expanding anything: blanks
// separate words; '…' keeps everything up to the next ' as it is; "…" keeps blanks, and in it
// a backslash escapes only " and \; outside quotes a backslash keeps the next character.
// "review 'my branch'" is two words, review and my branch. An unclosed quote is an error.
func SplitArgs(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case ch == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("arguments: unclosed ' quote")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case ch == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				w.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, errors.New("arguments: unclosed \" quote")
			}
			i = j
			inWord = true
		case ch == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// ShellDisabledText replaces a !`cmd` line's output when shell execution is off
// (disableSkillShellExecution, --restricted): the command is not run, and the prompt says so.
const ShellDisabledText = "[shell command not run: disableSkillShellExecution is set]"

// NoShell is h with its Bash calls replaced by ShellDisabledText: the !`cmd` lines of a body
// run nothing. Reads (@file) still go to h.
func NoShell(h Host) Host { return noShell{h} }

type noShell struct{ Host }

func (noShell) Bash(context.Context, string) (string, error) { return ShellDisabledText, nil }
