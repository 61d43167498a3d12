package tui

import (
	"bytes"
	"io"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// Notices carries what a session tells the person while the chat owns the terminal (a retry of
// the model API, a warning, a server's or a hook's words, a debug line) into the transcript:
// anything written to the terminal behind the full-screen UI would garble it. Lines that come
// while no chat is showing (before Run, after it) are kept in order; the front end prints them
// with Flush once the screen is given back.
type Notices struct {
	mu      sync.Mutex
	send    func(tea.Msg)
	pending []noticeMsg
	partial []byte // a line written in pieces, until its newline
}

// NewNotices returns Notices that keep every line until [Run] shows them.
func NewNotices() *Notices { return &Notices{} }

// Note shows a line as it is.
func (n *Notices) Note(text string) { n.add(noticeMsg{text: text}) }

// Warn shows a warning, marked as one.
func (n *Notices) Warn(text string) { n.add(noticeMsg{text: "warning: " + text, isErr: true}) }

// Write makes every line written a notice: the chat's standard error while it runs.
func (n *Notices) Write(p []byte) (int, error) {
	n.mu.Lock()
	n.partial = append(n.partial, p...)
	var lines []string
	for {
		i := bytes.IndexByte(n.partial, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(n.partial[:i]))
		n.partial = n.partial[i+1:]
	}
	n.mu.Unlock()
	for _, l := range lines {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			text := strings.TrimPrefix(l, "reins: ")
			n.add(noticeMsg{text: text, retry: isRetry(text)})
		}
	}
	return len(p), nil
}

// add sends the notice to the chat, or keeps it when none shows. The lock is held while
// sending so that a detach waits for a notice in flight; the chat's loop never takes it.
func (n *Notices) add(msg noticeMsg) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.send == nil {
		n.pending = append(n.pending, msg)
		return
	}
	n.send(msg)
}

// attach starts showing notices in the chat (send) — the kept ones first — or, with nil,
// stops.
func (n *Notices) attach(send func(tea.Msg)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.send = send
	if send == nil {
		return
	}
	for _, msg := range n.pending {
		send(msg)
	}
	n.pending = nil
}

// Flush writes the kept lines, and a line not finished, to w (the terminal once the chat is
// gone), each prefixed as the CLI prefixes its messages.
func (n *Notices) Flush(w io.Writer) {
	n.mu.Lock()
	pending, partial := n.pending, n.partial
	n.pending, n.partial = nil, nil
	n.mu.Unlock()
	for _, msg := range pending {
		io.WriteString(w, "reins: "+msg.text+"\n")
	}
	if len(partial) > 0 {
		io.WriteString(w, "reins: "+string(partial)+"\n")
	}
}

// isRetry reports the line the session writes before it tries a model request again
// (internal/app's "model API: …; retrying in 2s (1/10)").
func isRetry(text string) bool {
	return strings.HasPrefix(text, "model API: ") && strings.Contains(text, "; retrying in ")
}
