package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/tool"
)

// A file the model changed after its last Read (Edit, Write, NotebookEdit) is carried over a
// compaction too: what Reins itself last wrote is known (the file state holds its digest), so
// when the file still holds exactly that, its content goes into the compacted conversation as a
// Read of it would, and Edit goes on without a new Read. A file changed since, partly known or
// too large is not carried, and its record goes: the next Edit asks for a Read.

// writeTools are the tools whose successful call leaves the file as the file state records it.
var writeTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true}

// carryWrittenBytes bounds what is read of a written file to carry it (the token bound is
// checked on what was read).
const carryWrittenBytes = 4 * carryFileTokens * 4

// writtenContent returns the content to carry of a file the model last wrote: its lines
// numbered as the Read tool numbers them, and the Read input that would show them. False when
// files does not know the whole file, or the file is no longer what was written.
func writtenContent(ctx context.Context, files *tool.FileState) func(p string) (input, content string, ok bool) {
	return func(p string) (string, string, bool) {
		if files == nil {
			return "", "", false
		}
		r, ok := files.Lookup(p)
		if !ok || r.Partial || r.Hash == "" {
			return "", "", false
		}
		// A regular file only (a FIFO put there would block), judged on what was opened.
		data, err := boundedfile.Read(ctx, p, boundedfile.Limits{MaxBytes: carryWrittenBytes, Kind: "file to carry over"})
		if err != nil {
			return "", "", false
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != r.Hash {
			return "", "", false
		}
		input, _ := json.Marshal(map[string]string{"file_path": p})
		return string(input), numberLines(string(data)), true
	}
}

// numberLines is text as the Read tool shows it: each line after its number and a tab.
func numberLines(text string) string {
	text = strings.TrimPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "\ufeff")
	var b strings.Builder
	n := 0
	for line := range strings.Lines(text) {
		n++
		b.WriteString(strconv.Itoa(n))
		b.WriteByte('\t')
		b.WriteString(strings.TrimSuffix(line, "\n"))
		b.WriteByte('\n')
	}
	return b.String()
}
