package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// Texts of results that no tool produced, in Claude Code's words.
const (
	// CancelMessage answers a call the run was aborted before starting.
	CancelMessage = toolcall.CancelMessage
	// RejectMessage answers a call a person rejected in a permission dialog.
	RejectMessage = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
	// InterruptedMessage answers a call that was stopped while it ran, and fills in the results
	// of calls a crashed session never answered.
	InterruptedMessage = toolcall.InterruptedMessage
)

// ErrInterrupt is the cancellation cause for "a person typed a new message": it stops only the
// calls whose tool's interrupt behaviour is [tool.Cancel].
var ErrInterrupt = toolcall.ErrInterrupt

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
