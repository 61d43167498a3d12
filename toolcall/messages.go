package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reinsdev/reins/tool"
)

// Texts of results that no tool produced, in Claude Code's words.
const (
	// CancelMessage answers a call the run was aborted before starting.
	CancelMessage = "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed."
	// InterruptedMessage answers a call that was stopped while it ran.
	InterruptedMessage = "Interrupted by user"
)

// ErrInterrupt is the cancellation cause for "a person typed a new message": it stops only the
// calls whose tool's interrupt behaviour is [tool.Cancel].
var ErrInterrupt = errors.New("interrupted by a new message")

// maxErrorChars is how much of an error text a result keeps; longer texts keep their head and
// tail, half each.
const maxErrorChars = 10000

// FormatMessage is the text the model reads for a failure: the message, with the middle of a
// very long one cut out.
func FormatMessage(s string) string {
	if s == "" {
		s = "Error"
	}
	if len(s) <= maxErrorChars {
		return s
	}
	head, tail := cutUTF8(s, maxErrorChars/2, len(s)-maxErrorChars/2)
	return fmt.Sprintf("%s\n\n... [%d characters truncated] ...\n\n%s", head, len(s)-len(head)-len(tail), tail)
}

// cutUTF8 returns s[:i] and s[j:], with i moved back and j moved forward to rune boundaries.
func cutUTF8(s string, i, j int) (string, string) {
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	for j < len(s) && !utf8.RuneStart(s[j]) {
		j++
	}
	return s[:i], s[j:]
}

// CrashMessage is the text of a call whose tool panicked.
func CrashMessage(name string, v any) string {
	return tool.UseError(fmt.Sprintf("Error calling tool (%s): %v", name, v))
}

// Decode decodes a call's input against the tool's schema. A panicking decoder is a failure
// of the call ([CrashError]), never a crash of the program.
func Decode(t tool.Tool, raw json.RawMessage) (in any, err error) {
	defer func() {
		if v := recover(); v != nil {
			in, err = nil, &CrashError{Text: CrashMessage(t.Name(), v)}
		}
	}()
	return t.Decode(raw)
}

// CrashError is a panic in a tool's code, as the model reads it.
type CrashError struct{ Text string }

func (e *CrashError) Error() string { return e.Text }

// UseErrorText is the text the model reads for a call that could not start: its input did not
// decode or validate. A crash reads as itself.
func UseErrorText(err error) string {
	if ce, ok := errors.AsType[*CrashError](err); ok {
		return ce.Text
	}
	return tool.UseError(FormatMessage(err.Error()))
}

// callContext is the context a call runs under. A call whose tool blocks interrupts keeps
// running when the run is interrupted by a new message, and stops on any other cancellation.
func callContext(ctx context.Context, b tool.InterruptBehavior) (context.Context, func()) {
	if b != tool.Block {
		return context.WithCancel(ctx)
	}
	detached, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopAfter := context.AfterFunc(ctx, func() {
		if !errors.Is(context.Cause(ctx), ErrInterrupt) {
			cancel()
		}
	})
	return detached, func() { stopAfter(); cancel() }
}

// modifiedNote tells the model that a person changed the call before it ran, and how.
func modifiedNote(input any) string {
	// Not HTML-escaped: the model reads `a > b`, not `a \u003e b`.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(input); err != nil {
		return "The user modified the input of this call before approving it."
	}
	return "The user modified the input of this call before approving it; it ran with: " + strings.TrimSuffix(b.String(), "\n")
}
