package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
	"github.com/reinsdev/reins/llm"
)

// wantRefused checks that err is a bounded read's refusal of path, saying want. A file over
// the cap is refused for the conversation that would be resumed from it: a sparse file of
// MaxFileBytes+1 bytes without a line is one conversation of that length.
func wantRefused(t *testing.T, what string, err error, path, want string) {
	t.Helper()
	var nr *boundedfile.NotRegularError
	var tl *boundedfile.TooLargeError
	var long *TooLongError
	var lt *boundedfile.LineTooLongError
	if strings.HasPrefix(want, "is too large") {
		// No compaction in its last 256 MiB: the file is read whole, and its one line of
		// zeros is over the line cap.
		want = "line 1 is too long (session files may have lines of at most 134217728 bytes, 128 MiB)"
		path += ":"
	}
	if err == nil || !strings.Contains(err.Error(), path+" "+want) || !errors.As(err, &nr) && !errors.As(err, &tl) && !errors.As(err, &long) && !errors.As(err, &lt) {
		t.Errorf("%s = %v, want a refusal of %s containing %q", what, err, path, want)
	}
}

// TestHostileSessionFilesAreRefused: a session file that is a FIFO, a device, a folder, a
// socket or over the size cap is an error naming it, through --resume (Load by id),
// --continue (Latest, then Load) and /resume alike, and never a hang.
func TestHostileSessionFilesAreRefused(t *testing.T) {
	for _, h := range boundedfiletest.Hostile(MaxFileBytes) {
		t.Run(h.Name, func(t *testing.T) {
			store := NewStore(t.TempDir())
			cwd := "/work/p"
			id := NewID()
			if err := os.MkdirAll(store.Dir(cwd), 0o700); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(store.Dir(cwd), id+".jsonl")
			h.Make(t, p)
			var err error
			within(t, "Load", func() { _, err = store.Load(t.Context(), cwd, id) })
			wantRefused(t, "Load", err, p, h.Want)
			if !strings.HasPrefix(err.Error(), "reading session "+id+": ") {
				t.Errorf("Load = %v, want it to name the session", err)
			}
			if h.Name == "folder" {
				return // not a session to continue: List skips folders
			}
			latest, err := store.Latest(cwd)
			if err != nil || latest != id {
				t.Fatalf("Latest = %q, %v", latest, err)
			}
			within(t, "Load", func() { _, err = store.Load(t.Context(), cwd, latest) })
			wantRefused(t, "Load of the latest", err, p, h.Want)
		})
	}
}

// TestHostileSidechainIsRefused: a sub-agent transcript beside the session is read within the
// same bounds.
func TestHostileSidechainIsRefused(t *testing.T) {
	for _, h := range boundedfiletest.Hostile(MaxFileBytes) {
		if h.Name == "folder" {
			continue // Sidechains passes over folders
		}
		t.Run(h.Name, func(t *testing.T) {
			store := NewStore(t.TempDir())
			w, err := store.Create("/work/p", "m")
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			dir := sidechainDir(w.Path)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "agent-a1.jsonl")
			h.Make(t, p)
			tr, err := store.Load(t.Context(), "/work/p", w.ID)
			if err != nil {
				t.Fatal(err)
			}
			within(t, "Sidechains", func() { _, err = store.Sidechains(t.Context(), tr) })
			wantRefused(t, "Sidechains", err, p, h.Want)
		})
	}
}

func TestSessionOverTheLineCapIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 128 MiB line")
	}
	store := NewStore(t.TempDir())
	w, err := store.Create("/work/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendMessage(llm.UserText(strings.Repeat("x", MaxLineBytes))); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, err = store.Load(t.Context(), "/work/p", w.ID)
	var lt *boundedfile.LineTooLongError
	if !errors.As(err, &lt) || lt.Line != 2 || !strings.Contains(err.Error(), "line 2 is too long (session files may have lines of at most 134217728 bytes, 128 MiB)") {
		t.Errorf("Load = %v, want line 2 refused as too long", err)
	}
}

// TestSessionOverTheSizeCapSaysSo: a conversation since the last compaction (here: no
// compaction at all) over the bound a resume reads is refused, saying the bound, whether the
// file is found from its end or read whole.
func TestSessionOverTheSizeCapSaysSo(t *testing.T) {
	store := NewStore(t.TempDir())
	store.maxReadBytes = 64 << 10
	w, err := store.Create("/work/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if err := w.AppendMessage(llm.UserText(strings.Repeat("x", 1000))); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	_, err = store.Load(t.Context(), "/work/p", w.ID)
	var long *TooLongError
	if !errors.As(err, &long) || !strings.Contains(err.Error(), "is longer than 65536 bytes, 64 KiB") {
		t.Errorf("Load = %v, want the cap stated", err)
	}
	if !strings.Contains((&TooLongError{Path: "/p", Limit: MaxFileBytes}).Error(), "/p: the conversation to resume (what follows the last compaction) is longer than 268435456 bytes, 256 MiB") {
		t.Error("the message does not state the cap")
	}
}

func TestCancelledLoadReturnsTheContextsError(t *testing.T) {
	store := NewStore(t.TempDir())
	w, err := store.Create("/work/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := store.Load(ctx, "/work/p", w.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("Load = %v, want context.Canceled", err)
	}
}

// fileKinds are what FuzzLoad puts at a session's path: the fuzzed content as a regular file
// (directly or through a symlink), or one of the hostile files.
var fileKinds = append([]string{"regular", "symlink to regular"}, hostileNames()...)

func hostileNames() []string {
	var out []string
	for _, h := range boundedfiletest.Hostile(MaxFileBytes) {
		out = append(out, h.Name)
	}
	return out
}

// FuzzLoad: whatever a session file holds and whatever it is, Load returns promptly: the
// content of a regular file gives exactly what Parse gives (a history valid to send), and
// anything else is refused with an error naming the file.
func FuzzLoad(f *testing.F) {
	f.Add(uint8(0), []byte(`{"type":"session","version":1,"sessionId":"x","cwd":"/p"}
{"type":"message","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}
{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Read","input":{}}]}}
{"type":"permissions","permissions":{"mode":"plan"}}
`))
	f.Add(uint8(0), []byte(`{"type":"session","version":1,"sessionId":"x","cwd":"/p"}
{"type":"message","message":{"role":"user","content":[{"type":"text","text":"old"}]}}
{"type":"permissions","permissions":{"mode":"plan"}}
{"type":"compact_boundary","compactMetadata":{"trigger":"auto"},"resume":{"cwd":"/p","permissions":{"mode":"plan"}}}
{"type":"message","message":{"role":"user","content":[{"type":"text","text":"summary"}]}}
{"type":"compact_boundary","compactMetadata":{"trigger":"auto"},"resume":{"cwd":"/p"}}
{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"after"}]}}
{"type":"compact_boundary","compactMetadata":{"trigger":"auto"},"resume":{"cwd":"/p"}}
`))
	for i := range fileKinds {
		f.Add(uint8(i), []byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		store := NewStore(t.TempDir())
		cwd := "/p"
		id := NewID()
		if err := os.MkdirAll(store.Dir(cwd), 0o700); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(store.Dir(cwd), id+".jsonl")
		name := fileKinds[int(kind)%len(fileKinds)]
		switch name {
		case "regular":
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
		case "symlink to regular":
			target := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(target, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		default:
			for _, h := range boundedfiletest.Hostile(MaxFileBytes) {
				if h.Name == name {
					h.Make(t, p)
				}
			}
		}
		var tr *Transcript
		var err error
		within(t, "Load", func() { tr, err = store.Load(t.Context(), cwd, id) })
		if strings.HasPrefix(name, "regular") || strings.HasPrefix(name, "symlink to regular") {
			if err != nil {
				t.Fatalf("Load of a regular file: %v", err)
			}
			want := Parse(data)
			checkValid(t, tr.Messages)
			if !reflect.DeepEqual(tr.Messages, want.Messages) || tr.tornTail != want.tornTail {
				t.Fatalf("Load and Parse differ: %d/%d messages, torn %v/%v", len(tr.Messages), len(want.Messages), tr.tornTail, want.tornTail)
			}
			// Read from a boundary, the state before it is the boundary's record (which only
			// a Writer's files are sure to hold right: TestResumeIsAReadFromTheStart); read
			// whole, everything is Parse's.
			if tr.From == 0 && (tr.Skipped != want.Skipped || tr.Cwd != want.Cwd || !reflect.DeepEqual(tr.Permissions, want.Permissions)) {
				t.Fatalf("Load and Parse differ: skipped %d/%d, cwd %q/%q, permissions %+v/%+v", tr.Skipped, want.Skipped, tr.Cwd, want.Cwd, tr.Permissions, want.Permissions)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("Load of a %s = %v, want an error naming %s", name, err, p)
		}
	})
}
