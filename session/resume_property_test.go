package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"pgregory.net/rapid"
)

// history writes a random session through the Store's own Writers, with everything that can
// happen to a session file: turns with tool calls, permission changes, compactions (some cut
// off before their summary by a crash), checkpoints, resumes (a Load and a Reopen), torn
// lines left by a kill, boundaries written by older code (no state recorded), a file another
// process appended to between a Load and the Reopen, and forks that go on in a new session.
type history struct {
	t     *rapid.T
	store *Store
	cwd   string
	w     *Writer
	n     int // ids of tool uses and points
	open  []string
	uuids []string // of the messages written with one
}

func (h *history) fatal(err error) {
	if err != nil {
		h.t.Fatal(err)
	}
}

// raw appends bytes to the closed session's file, as another program (an older reins, a
// crash) would have.
func (h *history) raw(b []byte) {
	f, err := os.OpenFile(h.w.Path, os.O_WRONLY|os.O_APPEND, 0)
	h.fatal(err)
	_, err = f.Write(b)
	h.fatal(err)
	h.fatal(f.Close())
}

func rawLine(l line) []byte {
	l.Timestamp = time.Unix(0, 0).UTC()
	b, err := encodeLine(l)
	if err != nil {
		panic(err)
	}
	return b
}

// resume closes the writer, checks the resume against a read from the start, and goes on in
// the session as --resume does (the Transcript that Load returned is the one reopened); race
// appends a line between the two.
func (h *history) resume(race bool) {
	h.fatal(h.w.Close())
	tr := h.check("resume")
	if race {
		h.raw(rawLine(line{Type: "permissions", Permissions: h.state()}))
	}
	w, err := h.store.Reopen(tr)
	h.fatal(err)
	h.w = w
}

// check compares what Load resumes of the current session with what a read of the whole file
// gives, field by field, and the conversation before every point with a read of the file up
// to the point's line.
func (h *history) check(when string) *Transcript {
	t := h.t
	fast, err := h.store.Load(t.Context(), h.cwd, h.w.ID)
	h.fatal(err)
	data, err := os.ReadFile(h.w.Path)
	h.fatal(err)
	full := Parse(data)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"messages", fast.Messages, full.Messages},
		{"permissions", fast.Permissions, full.Permissions},
		{"cwd", fast.Cwd, full.Cwd},
		{"model", fast.Model, full.Model},
		{"torn tail", fast.tornTail, full.tornTail},
		{"files", fast.Files(), full.Files()},
		{"usage", []any{fast.Usage, fast.Measured}, []any{full.Usage, full.Measured}},
		{"state", decodeState(t, fast.end), decodeState(t, &resumeState{Cwd: full.Cwd, Model: full.Model, Permissions: mustJSON(full.Permissions), Files: full.Files()})},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Fatalf("%s: the resumed %s differs from a read from the start (read from byte %d):\n got %+v\nwant %+v", when, c.name, fast.From, c.got, c.want)
		}
	}
	seen := map[string]bool{}
	for _, p := range full.Points {
		if seen[p] {
			continue
		}
		seen[p] = true
		before, err := h.store.LoadBefore(t.Context(), h.cwd, h.w.ID, p)
		h.fatal(err)
		cut := bytes.Index(data, []byte(`"pointId":"`+p+`"`))
		want := Parse(data[:bytes.LastIndexByte(data[:cut], '\n')+1])
		if !reflect.DeepEqual(before.Messages, want.Messages) || !reflect.DeepEqual(before.Permissions, want.Permissions) {
			t.Fatalf("%s: the conversation before point %s differs from the file up to its line", when, p)
		}
	}
	return fast
}

func mustJSON(v *agent.SessionState) json.RawMessage {
	if v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

// decodeState is a resumeState with its permissions decoded, to compare.
func decodeState(t *rapid.T, st *resumeState) any {
	if st == nil {
		t.Fatal("Load did not record the state the file leaves")
	}
	var p parser
	if err := st.apply(&p); err != nil {
		t.Fatal(err)
	}
	return []any{p.t.Cwd, p.t.Model, p.t.Permissions, (&p.t).Files()}
}

func (h *history) state() *agent.SessionState {
	t := h.t
	st := &agent.SessionState{Mode: rapid.SampledFrom([]permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeDontAsk}).Draw(t, "mode")}
	for _, r := range rapid.SliceOfN(rapid.SampledFrom([]string{"Bash(ls)", "Edit(/w/**)", "Read(//etc/**)", "WebFetch(domain:x.dev)"}), 0, 3).Draw(t, "rules") {
		st.Rules = append(st.Rules, agent.SessionRule{Behavior: rapid.SampledFrom([]permission.Behavior{permission.Allow, permission.Deny, permission.Ask}).Draw(t, "behavior"), Rule: r})
	}
	if rapid.Bool().Draw(t, "dir") {
		st.Directories = []string{"/w/extra"}
	}
	if rapid.Bool().Draw(t, "taint") {
		st.Taint = []permission.SecretRead{{Path: "/w/.env", Pattern: ".env", Tool: "Read"}}
	}
	return st
}

func (h *history) message() llm.Message {
	t := h.t
	if rapid.Bool().Draw(t, "user") {
		var content []llm.Block
		for _, id := range h.open {
			if rapid.IntRange(0, 4).Draw(t, "answered") > 0 {
				content = append(content, result(id, "out"))
			}
		}
		h.open = nil
		return llm.Message{Role: llm.RoleUser, Content: append(content, llm.Text(fmt.Sprintf("prompt %d", h.n)))}
	}
	content := []llm.Block{llm.Text("answer")}
	for range rapid.IntRange(0, 2).Draw(t, "uses") {
		h.n++
		id := fmt.Sprintf("t%d", h.n)
		h.open = append(h.open, id)
		content = append(content, toolUse(id))
	}
	return llm.Message{Role: llm.RoleAssistant, Content: content}
}

func (h *history) step() {
	t := h.t
	switch op := rapid.IntRange(0, 18).Draw(t, "op"); op {
	case 0, 1, 2, 3, 14:
		h.fatal(h.w.AppendMessage(h.message()))
	case 15:
		m := h.message()
		info := agent.MessageInfo{UUID: fmt.Sprintf("u%d", h.n)}
		if m.Role == llm.RoleAssistant {
			info.Usage = &llm.Usage{InputTokens: h.n + 1}
		}
		h.fatal(h.w.AppendMessageInfo(m, info))
		h.uuids = append(h.uuids, info.UUID)
	case 18:
		// --resume-session-at: the conversation goes on from an earlier message.
		if len(h.uuids) == 0 {
			return
		}
		uuid := rapid.SampledFrom(h.uuids).Draw(t, "resume at")
		tr, err := h.store.LoadUpTo(t.Context(), h.cwd, h.w.ID, uuid)
		if errors.Is(err, ErrNoMessage) {
			return // before the last compaction
		}
		h.fatal(err)
		h.fatal(h.w.AppendResumeAt(uuid, tr))
	case 16, 17:
		// What the model knows of files, which a compaction carries into its summary.
		path := rapid.SampledFrom([]string{"/w/a.go", "/w/b.go", "/w/c.go"}).Draw(t, "file")
		if op == 17 {
			h.fatal(h.w.AppendFileState(path, nil))
		} else {
			h.fatal(h.w.AppendFileState(path, &tool.FileRead{Hash: fmt.Sprint(h.n)}))
		}
	case 4:
		h.fatal(h.w.AppendPermissions(*h.state()))
	case 5, 6:
		h.fatal(h.w.AppendBoundary(agent.Boundary{Trigger: agent.TriggerAuto, PreTokens: h.n}))
		if rapid.IntRange(0, 3).Draw(t, "summary") > 0 { // else: the process died in between
			h.fatal(h.w.AppendMessage(llm.UserText(fmt.Sprintf("summary %d", h.n))))
		}
		h.open = nil
	case 7:
		h.n++
		h.fatal(h.w.AppendPoint(fmt.Sprintf("p%d", h.n)))
	case 8:
		h.resume(false)
	case 9:
		h.resume(true)
	case 10:
		// Killed in the middle of a line: a torn line at the end, which the next writer
		// starts a fresh line after.
		h.fatal(h.w.Close())
		l := rawLine(rapid.SampledFrom([]line{
			{Type: "compact_boundary", Compact: &agent.Boundary{Trigger: agent.TriggerAuto}, Resume: &resumeState{Cwd: "/elsewhere"}},
			{Type: "message", Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("torn")}}},
			{Type: "permissions", Permissions: h.state()},
		}).Draw(t, "torn"))
		h.raw(l[:rapid.IntRange(1, len(l)-2).Draw(t, "cut")])
		h.resume(false)
	case 11:
		// An older reins resumed the session and compacted: a boundary without the state.
		h.fatal(h.w.Close())
		h.raw(rawLine(line{Type: "compact_boundary", Compact: &agent.Boundary{Trigger: agent.TriggerManual}}))
		h.raw(rawLine(line{Type: "message", Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("old summary")}}}))
		h.resume(false)
	case 12:
		// A fork (rewind --conversation, --fork-session) goes on in a new session.
		h.fatal(h.w.Close())
		tr := h.check("fork")
		id, err := h.store.Fork(h.cwd, "m2", tr)
		h.fatal(err)
		tr, err = h.store.Load(t.Context(), h.cwd, id)
		h.fatal(err)
		w, err := h.store.Reopen(tr)
		h.fatal(err)
		h.w = w
	case 13:
		if rapid.IntRange(0, 3).Draw(t, "big") > 0 {
			return
		}
		// Lines about as long as what the backward scan reads at once, so that line starts
		// and heads fall on its edges.
		h.fatal(h.w.AppendMessage(llm.UserText(fmt.Sprintf("big %d %s", h.n, bytes.Repeat([]byte("x"), rapid.IntRange(backChunk-100, backChunk+100).Draw(t, "size"))))))
	}
}

// TestResumeIsAReadFromTheStart: whatever the history of a session, what a resume restores —
// the conversation, the permission state (mode, session rules and directories, scoped
// approvals, taint), cwd and model, and the state its next boundary will record — is exactly
// what a read of the whole file from the start gives, so a resumed session decides and
// answers as that one would; and the conversation before every checkpoint is the file's up to
// the checkpoint's line.
func TestResumeIsAReadFromTheStart(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := &history{t: rt, store: NewStore(t.TempDir()), cwd: "/w"}
		h.store.syncDelay = time.Hour // Close syncs
		w, err := h.store.Create(h.cwd, "m")
		h.fatal(err)
		h.w = w
		for range rapid.IntRange(1, 40).Draw(rt, "steps") {
			h.step()
		}
		h.fatal(h.w.Close())
		h.check("end")
	})
}
