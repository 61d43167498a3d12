package files

import (
	"github.com/reinsdev/reins/tool"
)

// Options configure the file tools. The zero value gives Claude Code's limits.
type Options struct {
	// MaxReadBytes is the largest file Read returns without a limit; 0 means 256 KiB.
	MaxReadBytes int64
	// MaxReadTokens is the most tokens (estimated as bytes/4) one Read may return; 0 means
	// 25,000. Claude Code reads it from CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS.
	MaxReadTokens int

	// hook is called at named points of a write, so fault tests can stop a writer there.
	hook func(stage string)
	// journalDir holds the journals of in-place writes (journal.go); "" means the user's
	// cache folder.
	journalDir string
}

const (
	defaultMaxReadBytes  = 256 << 10
	defaultMaxReadTokens = 25000
	// maxEditBytes is the largest file Edit changes.
	maxEditBytes = 1 << 30
)

func (o Options) maxReadBytes() int64 {
	if o.MaxReadBytes > 0 {
		return o.MaxReadBytes
	}
	return defaultMaxReadBytes
}

func (o Options) maxReadTokens() int {
	if o.MaxReadTokens > 0 {
		return o.MaxReadTokens
	}
	return defaultMaxReadTokens
}

func (o Options) at(stage string) {
	if o.hook != nil {
		o.hook(stage)
	}
}

// Tools returns Read, Edit, Write and NotebookEdit.
func Tools(opts Options) []tool.Tool {
	return []tool.Tool{NewRead(opts), NewEdit(opts), NewWrite(opts), NewNotebookEdit(opts)}
}

func ptr[T any](v T) *T { return &v }
