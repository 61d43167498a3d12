package tool

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Content is one block of a tool result as the model sees it: text or an image.
type Content struct {
	Type      string `json:"type"` // "text" or "image"
	Text      string `json:"text,omitempty"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"` // base64, for images
}

// Text is a text content block.
func Text(s string) Content { return Content{Type: "text", Text: s} }

// Result is what a call returns: the content the model sees, and the tool's structured output
// for UIs, hooks and tests.
type Result struct {
	Content []Content `json:"content"`
	IsError bool      `json:"is_error,omitempty"`
	Output  any       `json:"output,omitempty"`
	// TextFile, when set, holds the result's text, which comes before Content's blocks: a tool
	// whose text grew too large to hold in memory wrote it to a file from
	// [Env.CreateResultFile] instead. Whoever receives the Result owns the file: it moves it
	// where it belongs, or takes the text back with [Result.Inline], or removes it with
	// [Result.Release].
	TextFile *TextFile `json:"-"`
	// Reads are the files whose content this result shows or tells the model about (a Read's
	// file, the files Grep matched, what the Bash analysis found a command read, an MCP
	// resource's path). The call pipeline checks them against the secret file patterns: one
	// that is a secret taints the session (permission.Taint). A tool sets them only when
	// something of the content reached the result.
	Reads []string `json:"-"`
	// EndTurn ends the turn when the call succeeds: the model is not asked again, and the
	// run ends once the turn's other calls have their results (Claude Code's end-turn tools,
	// such as StructuredOutput).
	EndTurn bool `json:"-"`
}

// TextFile is a result's text in a file (see [Result.TextFile]).
type TextFile struct {
	Path string
	// Size is the text's length in bytes, Chars in characters (UTF-8 sequences).
	Size, Chars int64
	// Head is the start of the text, at least [TextFileHead] bytes of it (all of it when
	// shorter), for a preview that needs no read of the file.
	Head string
}

// TextFileHead is how much of a [TextFile]'s text its Head holds at least.
const TextFileHead = 4096

// Inline returns r with the text of its TextFile, if any, read back as its first text block,
// and removes the file.
func (r Result) Inline() (Result, error) {
	if r.TextFile == nil {
		return r, nil
	}
	b, err := os.ReadFile(r.TextFile.Path)
	r.Release()
	if err != nil {
		return Result{}, fmt.Errorf("reading the saved result: %w", err)
	}
	r.Content = append([]Content{Text(string(b))}, r.Content...)
	r.TextFile = nil
	return r, nil
}

// Release removes the TextFile of a result no one will read.
func (r Result) Release() {
	if r.TextFile != nil {
		os.Remove(r.TextFile.Path)
	}
}

// TextResult is a successful result with one text block.
func TextResult(s string) Result { return Result{Content: []Content{Text(s)}} }

// ErrorResult is an error result with one text block.
func ErrorResult(s string) Result { return Result{Content: []Content{Text(s)}, IsError: true} }

// Failure is a message for the model: why a call cannot run as asked (a file that does not
// exist, a string that is not in the file), in the words the model should read. It is a value
// of its own rather than a Go error so that model-facing prose and program errors never mix.
type Failure struct {
	Message string
}

// Fail is a Failure with the message msg.
func Fail(msg string) *Failure { return &Failure{Message: msg} }

// Failf is a Failure with a formatted message.
func Failf(format string, args ...any) *Failure {
	return &Failure{Message: fmt.Sprintf(format, args...)}
}

// Result is the failure as an error result of a call.
func (f *Failure) Result() Result { return ErrorResult(f.Message) }

// String is the message.
func (f *Failure) String() string { return f.Message }

// UseError wraps a message the way Claude Code marks failures before a tool ran: unknown tool,
// invalid input, failed validation.
func UseError(msg string) string { return "<tool_use_error>" + msg + "</tool_use_error>" }

// UnknownToolMessage is the result text for a tool_use naming no available tool.
func UnknownToolMessage(name string) string {
	return UseError(fmt.Sprintf("Error: No such tool available: %s", name))
}

// TextOf joins the text blocks of a result.
func (r Result) TextOf() string {
	s := ""
	for _, c := range r.Content {
		if c.Type == "text" {
			s += c.Text
		}
	}
	return s
}

// FormatSize writes a byte count as Claude Code does in its messages: "512 bytes", "1.5KB",
// "256KB", "21.3MB", "1GB".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	v, units := float64(n)/unit, []string{"KB", "MB", "GB"}
	i := 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + units[i]
}
