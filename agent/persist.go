package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// Result persistence: a successful result whose text is longer than its tool's cap
// ([tool.Spec.MaxResultChars]) does not go to the model whole. The agent saves the text to
// <ResultsDir>/<tool_use id>.txt and sends a <persisted-output> block in its place, with the
// file's path and a preview, as Claude Code does; the model may Read the file (the CLI makes
// the folder an internal readable directory of the permission context).

// previewBytes is how much of a persisted text the block shows.
const previewBytes = 2048

// persistResult replaces the text of a result too large for the model by the
// <persisted-output> block. Image blocks stay, after the block. A result that cannot be saved
// goes whole, with a notice on the bus: losing a result is worse than a large request.
func (x *executor) persistResult(t tool.Tool, id string, res tool.Result) tool.Result {
	limit := t.Spec().MaxResultChars
	if res.TextFile != nil {
		if x.resultsDir != "" && !res.IsError && limit >= 0 && res.TextFile.Chars > int64(limit) {
			if out, ok := x.keepTextFile(t, id, res); ok {
				return out
			}
		}
		// Short enough after all, or not movable (a tool's own file on another device, say):
		// the text goes in the result, and is saved below like any other text if it must be.
		in, err := res.Inline()
		if err != nil {
			return tool.ErrorResult(toolcall.FormatMessage(err.Error()))
		}
		res = in
	}
	if x.resultsDir == "" || res.IsError || limit < 0 {
		return res
	}
	size := -1 // the texts are joined by newlines
	for _, c := range res.Content {
		if c.Type != "image" {
			size += len(c.Text) + 1
		}
	}
	// A rune is at least one byte: a text of at most limit bytes is short enough.
	if size <= limit {
		return res
	}
	text := toolcall.ResultText(res)
	if utf8.RuneCountInString(text) <= limit {
		return res
	}
	path, err := x.writeResult(id, text)
	if err != nil {
		x.bus.Publish(Event{Type: EventNotice, ToolUseID: id,
			Text: fmt.Sprintf("the result of %s (%s) was sent whole: saving it failed: %v", t.Name(), tool.FormatSize(int64(len(text))), err)})
		return res
	}
	out := res
	out.Content = []tool.Content{tool.Text(persistedBlock(path, text))}
	for _, c := range res.Content {
		if c.Type == "image" {
			out.Content = append(out.Content, c)
		}
	}
	return out
}

// keepTextFile moves a result's text file, which the tool wrote through
// [executor.createResultFile], to its place in the results folder, and returns the result the
// model gets.
func (x *executor) keepTextFile(t tool.Tool, id string, res tool.Result) (tool.Result, bool) {
	tf := res.TextFile
	path, err := x.keep(tf.Path, id)
	if err != nil {
		x.bus.Publish(Event{Type: EventNotice, ToolUseID: id,
			Text: fmt.Sprintf("the result of %s (%s) is read back into memory: moving its file failed: %v", t.Name(), tool.FormatSize(tf.Size), err)})
		return res, false
	}
	out := res
	out.TextFile = nil
	out.Content = append([]tool.Content{tool.Text(persistedBlockOf(path, tf.Size, preview(tf.Head, tf.Size)))}, res.Content...)
	return out, true
}

// createResultFile is a tool's Env.CreateResultFile, and where the agent writes a text it
// saves itself: a private file (0600) in the results folder, so that keeping it is a rename.
func (x *executor) createResultFile() (*os.File, error) {
	if err := os.MkdirAll(x.resultsDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the tool-results folder: %w", err)
	}
	return os.CreateTemp(x.resultsDir, ".partial-*.txt")
}

// keep gives a file of the results folder its name as the result of the call id, and
// returns its path.
func (x *executor) keep(file, id string) (string, error) {
	path := filepath.Join(x.resultsDir, resultFileName(id))
	if err := os.Rename(file, path); err != nil {
		return "", err
	}
	return path, nil
}

// writeResult saves text as the result of the call id. The text is complete under its name
// or not there at all: it is written to a new file, then renamed.
func (x *executor) writeResult(id, text string) (string, error) {
	f, err := x.createResultFile()
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var path string
	if err == nil {
		path, err = x.keep(f.Name(), id)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("saving the result: %w", err)
	}
	return path, nil
}

// resultFileName is <id>.txt with every byte of id that is not a letter, digit, '-' or '_'
// replaced: the id comes from the model's reply and must not name a path elsewhere.
func resultFileName(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		b = []byte("result")
	}
	return string(b) + ".txt"
}

// persistedBlock is the text the model gets for a persisted result of size bytes.
func persistedBlock(path, text string) string {
	return persistedBlockOf(path, int64(len(text)), preview(text, int64(len(text))))
}

// persistedBlockOf is persistedBlock from the parts: the size in bytes and the preview, which
// ends in "..." when the text goes on.
func persistedBlockOf(path string, size int64, pv string) string {
	var b strings.Builder
	b.WriteString("<persisted-output>\nOutput too large (")
	b.WriteString(tool.FormatSize(size))
	b.WriteString("). Full output saved to: ")
	b.WriteString(path)
	b.WriteString("\n\nPreview (first 2KB):\n")
	b.WriteString(pv)
	b.WriteString("\n</persisted-output>")
	return b.String()
}

// preview is the start of a text of size bytes that head begins: at most previewBytes bytes,
// cut at the last line break when one falls in the second half, else at a rune boundary,
// followed by a line "..." when the text goes on.
func preview(head string, size int64) string {
	if size <= previewBytes && int64(len(head)) >= size {
		return strings.TrimSuffix(head[:size], "\n")
	}
	if len(head) > previewBytes {
		head = head[:previewBytes+1]
	}
	cut := min(len(head), previewBytes)
	if i := strings.LastIndexByte(head[:cut], '\n'); i >= previewBytes/2 {
		head = head[:i]
	} else if cut < len(head) {
		for cut > 0 && !utf8.RuneStart(head[cut]) {
			cut--
		}
		head = head[:cut]
	}
	return head + "\n..."
}
