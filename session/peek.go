package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/llm"
)

// Peek is what a list of sessions shows of one, read from the start of its file only: a
// listing costs the same however long the sessions are.
type Peek struct {
	// Prompt is the first message the person wrote; "" for a session with none yet.
	Prompt string
	// Branch is the git branch the session began on ("" outside a repository, or unknown).
	Branch string
	// Size is the file's size in bytes.
	Size int64
}

// peekBytes is how much of a session file Peek reads at most.
const peekBytes = 256 << 10

// Peek reads what a list shows of session id of cwd: its lines up to the first prompt, within
// the session files' bounds, and no further than peekBytes into the file.
func (s *Store) Peek(ctx context.Context, cwd, id string) (Peek, error) {
	path, err := s.Find(cwd, id)
	if err != nil {
		return Peek{}, err
	}
	var p Peek
	if fi, err := os.Stat(path); err == nil {
		p.Size = fi.Size()
	}
	read := 0
	err = boundedfile.Lines(ctx, path, fileLimits, func(raw []byte) error {
		var l line
		if json.Unmarshal(raw, &l) == nil {
			switch {
			case l.Type == "git":
				p.Branch = l.Branch
			case l.Type == "message" && l.Message != nil && l.Message.Role == llm.RoleUser:
				p.Prompt = promptText(*l.Message)
			}
		}
		if read += len(raw); p.Prompt != "" || read >= peekBytes {
			return errPeeked
		}
		return nil
	})
	if err != nil && !errors.Is(err, errPeeked) {
		return p, err
	}
	return p, nil
}

// errPeeked stops Peek's read once it has what it shows.
var errPeeked = errors.New("peeked")

// promptText is a user message's text when it is the person's (no tool results in it).
func promptText(m llm.Message) string {
	var b strings.Builder
	for _, c := range m.Content {
		switch c.Type {
		case llm.BlockToolResult:
			return ""
		case llm.BlockText:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

// AppendBranch writes the git branch the session works on (shown by Peek). See [Writer] for
// when it is on disk.
func (w *Writer) AppendBranch(branch string) error {
	if branch == "" {
		return errors.New("a git line needs a branch")
	}
	return w.write(line{Type: "git", Branch: branch})
}
