package cmdutil

import (
	"fmt"
	"strings"

	"github.com/reinsdev/reins/checkpoint"
)

// RewindText says what a rewind did, in words: every file put back, and every one it did not
// with why.
func RewindText(res checkpoint.Result) string {
	var b strings.Builder
	if len(res.FilesChanged) == 0 {
		b.WriteString("Files: nothing to put back.")
	} else {
		fmt.Fprintf(&b, "Put back %s (+%d −%d lines): %s.", Files(len(res.FilesChanged)), res.Insertions, res.Deletions, strings.Join(res.FilesChanged, ", "))
	}
	if len(res.Conflicts) > 0 {
		fmt.Fprintf(&b, "\nLeft as they are, changed since by someone other than the agent: %s.", strings.Join(res.Conflicts, ", "))
	}
	if res.SkippedLinks > 0 {
		fmt.Fprintf(&b, "\nSkipped %s: a symlink or another non-regular file stands at them or on the way.", Files(res.SkippedLinks))
	}
	for _, s := range res.NotCaptured {
		fmt.Fprintf(&b, "\nNot captured, so not put back: %s (%s).", s.Path, s.Reason)
	}
	for _, s := range res.Failed {
		fmt.Fprintf(&b, "\nCould not put back %s: %s.", s.Path, s.Reason)
	}
	return b.String()
}

func FailedPaths(list []checkpoint.Skipped) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Path
	}
	return out
}

// Files is "1 file", "2 files".
func Files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}
