package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
)

// Texts of results that no tool produced, in Claude Code's words.
const (
	// CancelMessage answers a call the run was aborted before starting.
	CancelMessage = "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed."
	// RejectMessage answers a call a person rejected in a permission dialog.
	RejectMessage = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
	// InterruptedMessage answers a call that was stopped while it ran, and fills in the results
	// of calls a crashed session never answered.
	InterruptedMessage = "Interrupted by user"
)

// ErrInterrupt is the cancellation cause for "a person typed a new message": it stops only the
// calls whose tool's interrupt behaviour is [tool.Cancel].
var ErrInterrupt = errors.New("interrupted by a new message")

// maxErrorChars is how much of an error text a result keeps; longer texts keep their head and
// tail, half each.
const maxErrorChars = 10000

// siblingCancelMessage answers the parallel siblings of a failed Bash call.
func siblingCancelMessage(command string) string {
	return tool.UseError(fmt.Sprintf("Cancelled: parallel tool call Bash(%s) errored", truncateRunes(command, 40)))
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// bashCommand extracts the command of a Bash call's input for the sibling message.
func bashCommand(input json.RawMessage) string {
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(input, &in) == nil && in.Command != "" {
		return in.Command
	}
	return string(input)
}

// formatError is the result text of a call that failed with a Go error.
func formatError(err error) string { return formatMessage(err.Error()) }

// formatMessage is formatError for a message that is already text (a [tool.Failure]).
func formatMessage(s string) string {
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

// crashMessage is the result text of a call that panicked.
func crashMessage(name string, v any) string {
	return tool.UseError(fmt.Sprintf("Error calling tool (%s): %v", name, v))
}

func errorResult(id, text string) llm.Block {
	return llm.ToolResult(id, []llm.Block{llm.Text(text)}, true)
}

// toResultBlock maps a tool's result to the tool_result block the model sees.
func toResultBlock(id string, r tool.Result) llm.Block {
	var content []llm.Block
	for _, c := range r.Content {
		switch c.Type {
		case "image":
			if c.Data != "" {
				content = append(content, llm.Image(c.MediaType, c.Data))
			}
		default:
			// The APIs reject empty text blocks.
			if strings.TrimSpace(c.Text) != "" {
				content = append(content, llm.Text(c.Text))
			}
		}
	}
	return llm.ToolResult(id, content, r.IsError)
}
