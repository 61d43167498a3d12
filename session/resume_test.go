package session

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// appendRaw appends b to the file at path, as another program would.
func appendRaw(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestLongHistoryResumes: a session whose history before its last compaction is longer than
// anything a resume may read — and could not be read at all: a line of 256 MiB, over the line
// cap — resumes from the compaction with the state recorded before it, without reading it.
// (Before boundaries recorded the state, Load read every line and refused the file for its
// size.)
func TestLongHistoryResumes(t *testing.T) {
	store := NewStore(t.TempDir())
	w, err := store.Create("/work/p", "m")
	must(t, err)
	must(t, w.AppendMessage(llm.UserText("the first prompt")))
	must(t, w.AppendPermissions(agent.SessionState{Mode: permission.ModeAcceptEdits, Rules: []agent.SessionRule{{Behavior: permission.Allow, Rule: "Bash(make)"}}}))
	must(t, w.Flush())
	// The history: a hole in the file (no disk space), one line of MaxFileBytes zeros.
	info, err := os.Stat(w.Path)
	must(t, err)
	must(t, os.Truncate(w.Path, info.Size()+MaxFileBytes))
	appendRaw(t, w.Path, []byte("\n"))
	must(t, w.AppendBoundary(agent.Boundary{Trigger: agent.TriggerAuto}))
	must(t, w.AppendMessage(llm.UserText("the summary")))
	must(t, w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("after it")}}))
	must(t, w.Close())

	var tr *Transcript
	within(t, "Load", func() { tr, err = store.Load(t.Context(), "/work/p", w.ID) })
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	if got := summarize(tr.Messages); got != "user[the summary] assistant[after it]" {
		t.Errorf("messages %s", got)
	}
	if tr.Permissions == nil || tr.Permissions.Mode != permission.ModeAcceptEdits || len(tr.Permissions.Rules) != 1 || tr.Cwd != "/work/p" || tr.Model != "m" {
		t.Errorf("state %+v, cwd %q, model %q", tr.Permissions, tr.Cwd, tr.Model)
	}
	if tr.From <= MaxFileBytes {
		t.Errorf("read from byte %d, want the boundary after the history", tr.From)
	}
	// A resumed session goes on there, and resumes again.
	w2, err := store.Reopen(tr)
	must(t, err)
	must(t, w2.AppendMessage(llm.UserText("next")))
	must(t, w2.AppendBoundary(agent.Boundary{Trigger: agent.TriggerManual}))
	must(t, w2.AppendMessage(llm.UserText("summary two")))
	must(t, w2.Close())
	tr, err = store.Load(t.Context(), "/work/p", w.ID)
	if err != nil || summarize(tr.Messages) != "user[summary two]" || tr.Permissions == nil || tr.Permissions.Rules[0].Rule != "Bash(make)" {
		t.Fatalf("second resume: %v, %+v", err, tr)
	}
	// Reading the history is for those who ask for it: it is there, and too long a line.
	_, err = store.LoadBefore(t.Context(), "/work/p", w.ID, "p1")
	var lt *boundedfile.LineTooLongError
	if !errors.As(err, &lt) || lt.Line != 4 {
		t.Errorf("LoadBefore = %v, want the history's line 4 too long", err)
	}
}

// TestResumeFallsBackToAScan: where the last boundary cannot be trusted to start the
// conversation, Load reads more and gets what a read from the start gets; where it can, it
// starts there.
func TestResumeFallsBackToAScan(t *testing.T) {
	text := func(role llm.Role, s string) llm.Message {
		return llm.Message{Role: role, Content: []llm.Block{llm.Text(s)}}
	}
	boundaryLine := func(resume *resumeState) []byte {
		return rawLine(line{Type: "compact_boundary", Compact: &agent.Boundary{Trigger: agent.TriggerManual}, Resume: resume})
	}
	messageLine := func(s string) []byte {
		return rawLine(line{Type: "message", Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(s)}}})
	}
	for _, tc := range []struct {
		name string
		// build writes the session; it returns whether Load should start at a boundary
		// (and at which text's summary), or read the whole file ("").
		build func(t *testing.T, s *Store, w *Writer) *Writer
		from  string // the text of the message after the boundary Load starts at; "" = the start
	}{
		{"no compaction: the whole file", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.AppendMessage(text(llm.RoleUser, "one")))
			return w
		}, ""},
		{"a compaction: from its boundary", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.AppendMessage(text(llm.RoleUser, "one")))
			must(t, w.AppendBoundary(agent.Boundary{}))
			must(t, w.AppendMessage(text(llm.RoleUser, "summary")))
			return w
		}, "summary"},
		{"a boundary whose summary never came: from the one before", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.AppendBoundary(agent.Boundary{}))
			must(t, w.AppendMessage(text(llm.RoleUser, "summary")))
			must(t, w.AppendMessage(text(llm.RoleAssistant, "kept")))
			must(t, w.AppendBoundary(agent.Boundary{}))
			return w
		}, "summary"},
		{"a boundary followed by a torn message only: from the start", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.AppendMessage(text(llm.RoleUser, "one")))
			must(t, w.AppendBoundary(agent.Boundary{}))
			must(t, w.Close())
			m := messageLine("torn")
			appendRaw(t, w.Path, m[:len(m)-5])
			return nil
		}, ""},
		{"a torn boundary after the last one: from the last whole one", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.AppendBoundary(agent.Boundary{}))
			must(t, w.AppendMessage(text(llm.RoleUser, "summary")))
			must(t, w.Close())
			b := boundaryLine(&resumeState{Cwd: "/elsewhere"})
			appendRaw(t, w.Path, b[:len(b)-3])
			appendRaw(t, w.Path, append([]byte("\n"), messageLine("after the tear")...))
			return nil
		}, "summary"},
		{"a boundary written by older code: the whole file", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.AppendPermissions(agent.SessionState{Mode: permission.ModePlan}))
			must(t, w.AppendBoundary(agent.Boundary{}))
			must(t, w.AppendMessage(text(llm.RoleUser, "summary")))
			must(t, w.Close())
			appendRaw(t, w.Path, boundaryLine(nil))
			appendRaw(t, w.Path, messageLine("old summary"))
			return nil
		}, ""},
		{"a record that is not a state: the whole file", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.Close())
			appendRaw(t, w.Path, []byte(`{"type":"compact_boundary","compactMetadata":{"trigger":"auto"},"resume":{"permissions":{"mode":7}}}`+"\n"))
			appendRaw(t, w.Path, messageLine("summary"))
			return nil
		}, ""},
		{"the file changed between Load and Reopen: the next boundary records nothing", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.AppendBoundary(agent.Boundary{}))
			must(t, w.AppendMessage(text(llm.RoleUser, "summary")))
			must(t, w.Close())
			tr, err := s.Load(t.Context(), "/p", w.ID)
			must(t, err)
			appendRaw(t, w.Path, rawLine(line{Type: "permissions", Permissions: &agent.SessionState{Mode: permission.ModeDontAsk}}))
			w, err = s.Reopen(tr)
			must(t, err)
			must(t, w.AppendBoundary(agent.Boundary{}))
			must(t, w.AppendMessage(text(llm.RoleUser, "summary two")))
			return w
		}, ""},
		{"a Reopen of what Load read: the next boundary records the state", func(t *testing.T, s *Store, w *Writer) *Writer {
			must(t, w.AppendPermissions(agent.SessionState{Mode: permission.ModePlan}))
			must(t, w.Close())
			tr, err := s.Load(t.Context(), "/p", w.ID)
			must(t, err)
			w, err = s.Reopen(tr)
			must(t, err)
			must(t, w.AppendBoundary(agent.Boundary{}))
			must(t, w.AppendMessage(text(llm.RoleUser, "summary two")))
			return w
		}, "summary two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(t.TempDir())
			w, err := s.Create("/p", "m")
			must(t, err)
			id, path := w.ID, w.Path
			if w = tc.build(t, s, w); w != nil {
				must(t, w.Close())
			}
			tr, err := s.Load(t.Context(), "/p", id)
			must(t, err)
			data, err := os.ReadFile(path)
			must(t, err)
			full := Parse(data)
			if !reflect.DeepEqual(tr.Messages, full.Messages) || !reflect.DeepEqual(tr.Permissions, full.Permissions) || tr.Cwd != full.Cwd || tr.Model != full.Model {
				t.Errorf("Load differs from a read from the start:\n %s %+v %q\n %s %+v %q", summarize(tr.Messages), tr.Permissions, tr.Cwd, summarize(full.Messages), full.Permissions, full.Cwd)
			}
			want := int64(0)
			if tc.from != "" {
				i := bytes.Index(data, []byte(`"text":"`+tc.from+`"`))
				want = int64(bytes.LastIndex(data[:bytes.LastIndexByte(data[:i], '\n')], []byte("\n")) + 1)
			}
			if tr.From != want {
				t.Errorf("read from byte %d, want %d", tr.From, want)
			}
		})
	}
}

// TestBoundaryLineIsReadByEveryReader: the state a boundary records is a field that readers
// of the lines before it (policy replay, an older reins) pass over: the line stays a
// compact_boundary line with its compactMetadata.
func TestBoundaryLineIsReadByEveryReader(t *testing.T) {
	s := NewStore(t.TempDir())
	w, err := s.Create("/p", "m")
	must(t, err)
	must(t, w.AppendPermissions(agent.SessionState{Mode: permission.ModePlan}))
	must(t, w.AppendBoundary(agent.Boundary{Trigger: agent.TriggerAuto, PreTokens: 7}))
	must(t, w.Close())
	data, err := os.ReadFile(w.Path)
	must(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	got := lines[len(lines)-1]
	for _, want := range []string{`{"type":"compact_boundary",`, `"compactMetadata":{"trigger":"auto","preTokens":7`, `"resume":{"cwd":"/p","model":"m","permissions":{"mode":"plan"}}}`} {
		if !strings.Contains(got, want) {
			t.Errorf("boundary line %s lacks %s", got, want)
		}
	}
}

// TestWholeReadKeepsOnlyWhatItMust: a file read whole (its last boundary records no state)
// keeps at most the bound of conversation however long the history before its last
// compaction, and is refused only when what follows the compaction is over the bound.
func TestWholeReadKeepsOnlyWhatItMust(t *testing.T) {
	s := NewStore(t.TempDir())
	s.maxReadBytes = 4 << 10
	w, err := s.Create("/p", "m")
	must(t, err)
	big := strings.Repeat("x", 1000)
	for range 20 { // 20 KB of history, five times the bound
		must(t, w.AppendMessage(llm.UserText(big)))
	}
	must(t, w.Close())
	appendRaw(t, w.Path, rawLine(line{Type: "compact_boundary", Compact: &agent.Boundary{Trigger: agent.TriggerManual}}))
	appendRaw(t, w.Path, rawLine(line{Type: "message", Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("summary")}}}))
	tr, err := s.Load(t.Context(), "/p", w.ID)
	if err != nil || tr.From != 0 || summarize(tr.Messages) != "user[summary]" {
		t.Fatalf("Load = %v, from %d, %s", err, tr.From, summarize(tr.Messages))
	}
	for range 5 {
		appendRaw(t, w.Path, rawLine(line{Type: "message", Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(big)}}}))
	}
	var long *TooLongError
	if _, err := s.Load(t.Context(), "/p", w.ID); !errors.As(err, &long) {
		t.Errorf("Load of 5 KB after the compaction = %v, want it refused", err)
	}
}
