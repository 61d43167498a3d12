package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTest(t *testing.T, opts Options) *Log {
	t.Helper()
	if opts.Path == "" {
		opts.Path = filepath.Join(t.TempDir(), "audit", "audit.jsonl")
	}
	l, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func appendN(t *testing.T, l *Log, n int) {
	t.Helper()
	for i := range n {
		e := Entry{Kind: KindDecision, Session: "s1", Tool: "Bash", ToolUseID: fmt.Sprintf("toolu_%d", i), Decision: "allow"}
		if err := l.Append(e, json.RawMessage(`{"command":"ls"}`)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAnUntouchedLogVerifies(t *testing.T) {
	l := openTest(t, Options{MaxBytes: 600, MaxFiles: 3})
	appendN(t, l, 20)
	r, err := Verify(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if r.HeadSeq != 20 || len(r.Files) != 4 {
		t.Fatalf("report = %+v, want head 20 over 3 rotated files and the current one", r)
	}
	if r.FirstSeq == 1 {
		t.Errorf("the oldest files should have been removed, yet the chain begins at 1")
	}
}

func TestRotationKeepsTheChain(t *testing.T) {
	l := openTest(t, Options{MaxBytes: 300, MaxFiles: 100})
	appendN(t, l, 6)
	files, _ := Files(l.Path())
	if len(files) < 3 {
		t.Fatalf("files = %v, want rotation", files)
	}
	var last string
	for i, f := range files {
		var first Entry
		err := eachLine(f, func(n int, line []byte) error {
			if n == 1 {
				first, _ = decodeEntry(line)
			}
			if i > 0 && n == 1 && first.Prev != last {
				t.Errorf("%s begins linked to %s, want the last hash of the file before, %s", f, first.Prev, last)
			}
			last = hashLine(line)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestVerifyNamesWhereTheChainBreaks(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
		want   string
	}{
		{"a byte of an entry", func(t *testing.T, p string) {
			edit(t, p, func(b []byte) []byte { return bytes.Replace(b, []byte("toolu_1"), []byte("toolu_X"), 1) })
		},
			"audit.jsonl:3: entry 3: the link to entry 2 does not match"},
		{"a removed line", func(t *testing.T, p string) { edit(t, p, func(b []byte) []byte { return dropLine(b, 1) }) },
			"audit.jsonl:2: entry 3: expected entry 2 after entry 1"},
		{"the cut tail", func(t *testing.T, p string) { edit(t, p, func(b []byte) []byte { return dropLine(b, 4) }) },
			"audit.jsonl:4: entry 4: the log ends at entry 4 but the anchor records 5 entries"},
		{"a half line", func(t *testing.T, p string) { edit(t, p, func(b []byte) []byte { return b[:len(b)-10] }) },
			"audit.jsonl:5: the last line is incomplete"},
		{"the last entry changed", func(t *testing.T, p string) {
			edit(t, p, func(b []byte) []byte { return bytes.Replace(b, []byte("toolu_4"), []byte("toolu_Y"), 1) })
		},
			"audit.jsonl:5: entry 5: the entry's hash is not the anchor's head"},
		{"the anchor removed", func(t *testing.T, p string) { os.Remove(AnchorPath(p)) },
			"audit.jsonl.anchor: the anchor is missing, and the log holds 5 entries"},
		{"the anchor's key case", func(t *testing.T, p string) {
			edit(t, AnchorPath(p), func(b []byte) []byte { return bytes.Replace(b, []byte(`"seq"`), []byte(`"Seq"`), 1) })
		},
			"it is not as the log wrote it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := openTest(t, Options{})
			appendN(t, l, 5)
			tt.change(t, l.Path())
			_, err := Verify(l.Path())
			var be *BreakError
			if !errors.As(err, &be) {
				t.Fatalf("Verify = %v, want a break", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Verify = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func edit(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

func dropLine(b []byte, i int) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	return bytes.Join(append(lines[:i:i], lines[i+1:]...), nil)
}

func TestConcurrentAppendsKeepOneChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	// Two Logs stand for two processes: each has its own mutex, so only the file lock keeps
	// them from forking the chain.
	a, b := openTest(t, Options{Path: path, MaxBytes: 4096}), openTest(t, Options{Path: path, MaxBytes: 4096})
	var wg sync.WaitGroup
	for _, l := range []*Log{a, b, a, b} {
		wg.Go(func() { appendN(t, l, 25) })
	}
	wg.Wait()
	r, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Entries != 100 {
		t.Fatalf("entries = %d, want 100", r.Entries)
	}
}

func TestInputsAreHashedUnlessAsked(t *testing.T) {
	raw := json.RawMessage(`{"command":"curl -H 'Authorization: secret' x"}`)
	for _, logInputs := range []bool{false, true} {
		l := openTest(t, Options{LogInputs: logInputs})
		if err := l.Append(Entry{Kind: KindRun, Tool: "Bash"}, raw); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(l.Path())
		if got := bytes.Contains(data, []byte("secret")); got != logInputs {
			t.Errorf("LogInputs %v: input in the log = %v", logInputs, got)
		}
		if !bytes.Contains(data, []byte(HashInput(raw))) {
			t.Errorf("LogInputs %v: the input's hash is missing: %s", logInputs, data)
		}
	}
	l := openTest(t, Options{LogInputs: true})
	big := json.RawMessage(`"` + strings.Repeat("a", MaxInputBytes) + `"`)
	if err := l.Append(Entry{Kind: KindRun}, big); err != nil {
		t.Fatal(err)
	}
	if err := Read(l.Path(), func(r Record) error {
		if r.Entry.Input != nil || !r.Entry.InputTruncated {
			t.Errorf("an input over MaxInputBytes: Input %d bytes, truncated %v", len(r.Entry.Input), r.Entry.InputTruncated)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestAppendRefusesToLinkPastDamage(t *testing.T) {
	l := openTest(t, Options{})
	appendN(t, l, 2)
	edit(t, l.Path(), func(b []byte) []byte { return b[:len(b)-3] })
	err := l.Append(Entry{Kind: KindRun}, nil)
	if err == nil || !strings.Contains(err.Error(), "incomplete line") {
		t.Fatalf("Append after a cut write = %v, want a refusal naming the incomplete line", err)
	}
}

func TestOpenFailsWhenTheLogCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	_, err := Open(Options{Path: filepath.Join(file, "audit.jsonl")})
	if err == nil {
		t.Fatal("Open under a regular file succeeded")
	}
	if _, err := Open(Options{Path: "relative.jsonl"}); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("Open of a relative path = %v", err)
	}
}

func TestTimeIsStampedFromTheClock(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l := openTest(t, Options{Now: func() time.Time { return at }})
	appendN(t, l, 1)
	Read(l.Path(), func(r Record) error {
		if !r.Entry.Time.Equal(at) {
			t.Errorf("time = %v, want %v", r.Entry.Time, at)
		}
		return nil
	})
}

func TestRemovedFilesAreFound(t *testing.T) {
	for _, which := range []string{"oldest", "middle", "current"} {
		t.Run(which, func(t *testing.T) {
			l := openTest(t, Options{MaxBytes: 300, MaxFiles: 10})
			appendN(t, l, 8)
			files, _ := Files(l.Path())
			if len(files) < 4 {
				t.Fatalf("files = %v, want at least three rotated", files)
			}
			victim := map[string]string{"oldest": files[0], "middle": files[1], "current": files[len(files)-1]}[which]
			if err := os.Remove(victim); err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(l.Path()); err == nil {
				t.Fatalf("removing the %s file %s went unnoticed", which, victim)
			}
		})
	}
}

// TestLongEntriesKeepTheChain: an entry longer than the first tail read (an input logged
// whole) is still found as the head.
func TestLongEntriesKeepTheChain(t *testing.T) {
	l := openTest(t, Options{LogInputs: true})
	long := json.RawMessage(`"` + strings.Repeat("x", 10<<10) + `"`)
	for range 3 {
		if err := l.Append(Entry{Kind: KindRun, Tool: "Write"}, long); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Verify(l.Path())
	if err != nil || r.Entries != 3 {
		t.Fatalf("Verify = %+v, %v", r, err)
	}
}

// TestVerifyDuringAppends: verify while another logger appends sees a consistent log every
// time, never a line whose anchor is not written yet.
func TestVerifyDuringAppends(t *testing.T) {
	l := openTest(t, Options{MaxBytes: 2000})
	appendN(t, l, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		appendN(t, l, 150)
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		if _, err := Verify(l.Path()); err != nil {
			t.Fatalf("Verify during appends: %v", err)
		}
	}
}
