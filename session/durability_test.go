package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
)

// fakeDisk stands in for fsync: it counts the syncs of session files, can hold them back, and
// records how many lines each sync found in the file.
type fakeDisk struct {
	mu      sync.Mutex
	syncs   int
	covered []int // lines in the file at each completed sync
	hold    chan struct{}
	fail    error
}

func (d *fakeDisk) fsync(f *os.File) error {
	if !strings.HasSuffix(f.Name(), ".jsonl") {
		return nil // the folder
	}
	d.mu.Lock()
	d.syncs++
	hold, fail := d.hold, d.fail
	d.mu.Unlock()
	if hold != nil {
		<-hold
	}
	if fail != nil {
		return fail
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.covered = append(d.covered, bytes.Count(data, []byte("\n")))
	d.mu.Unlock()
	return nil
}

func (d *fakeDisk) lastCovered() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.covered) == 0 {
		return 0
	}
	return d.covered[len(d.covered)-1]
}

// within fails the test if f has not returned after a generous deadline; it is a guard
// against hanging, not a measurement.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return", what)
	}
}

// TestAppendDoesNotWaitForDisk: while a sync is held back, appends still return and their lines
// are in the file; Flush returns only after a sync that covers every line appended before it,
// and the lines written during the held sync share one later sync (group commit).
func TestAppendDoesNotWaitForDisk(t *testing.T) {
	disk := &fakeDisk{hold: make(chan struct{})}
	store := NewStore(t.TempDir())
	store.fsync = disk.fsync
	w, err := store.Create("/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const n = 50
	within(t, "appending while the disk is busy", func() {
		for i := range n {
			if err := w.AppendMessage(llm.UserText(fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		}
	})
	data, _ := os.ReadFile(w.Path)
	if got := bytes.Count(data, []byte("\n")); got != n+1 {
		t.Fatalf("%d lines in the file before any sync completed, want %d", got, n+1)
	}
	flushed := make(chan error, 1)
	go func() { flushed <- w.Flush() }()
	select {
	case err := <-flushed:
		t.Fatalf("Flush returned (%v) while the disk held every sync back", err)
	default:
	}
	close(disk.hold)
	within(t, "Flush", func() {
		if err := <-flushed; err != nil {
			t.Error(err)
		}
	})
	if got := disk.lastCovered(); got != n+1 {
		t.Errorf("the last sync before Flush returned covered %d lines, want %d", got, n+1)
	}
	disk.mu.Lock()
	syncs := disk.syncs
	disk.mu.Unlock()
	// The held sync (the first line's), then one for the other 50 lines.
	if syncs > 2 {
		t.Errorf("%d syncs for %d lines written during one sync, want at most 2", syncs, n+1)
	}
}

// TestFlushAndCloseReportSyncFailure: a failed fsync is reported by Flush, by every later Flush
// (the kernel may have dropped the lines) and by Close.
func TestFlushAndCloseReportSyncFailure(t *testing.T) {
	disk := &fakeDisk{fail: syscall.EIO}
	store := NewStore(t.TempDir())
	store.fsync = disk.fsync
	w, err := store.Create("/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	w.AppendMessage(llm.UserText("hi"))
	for i := range 2 {
		if err := w.Flush(); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "syncing session") {
			t.Errorf("flush %d: %v, want the sync error", i, err)
		}
	}
	if err := w.Close(); !errors.Is(err, syscall.EIO) {
		t.Errorf("Close: %v, want the sync error", err)
	}
	if err := w.AppendMessage(llm.UserText("late")); err == nil {
		t.Error("append after Close succeeded")
	}
}

// TestCloseSyncsEverything: Close leaves every appended line synced, with no Flush before it.
func TestCloseSyncsEverything(t *testing.T) {
	disk := &fakeDisk{}
	store := NewStore(t.TempDir())
	store.fsync = disk.fsync
	w, err := store.Create("/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		w.AppendMessage(llm.UserText(fmt.Sprint(i)))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := disk.lastCovered(); got != 11 {
		t.Errorf("the last sync covered %d lines, want 11", got)
	}
}

// The helper process of TestKilledMidTurn: it writes a session as a turn does and reports
// each line on stdout once its Append has returned, never flushing, until it is killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("REINS_SESSION_KILL_HELPER"); dir != "" {
		killHelper(dir)
		return
	}
	os.Exit(m.Run())
}

func killHelper(dir string) {
	w, err := NewStore(dir).Create("/p", "m")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("path", w.Path)
	w.AppendMessage(llm.UserText("go"))
	fmt.Println("appended 2")
	n := 2
	for i := 0; ; i++ {
		// A turn: the model calls a tool, the tool's result comes back.
		id := "t" + strconv.Itoa(i)
		w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{toolUse(id)}})
		w.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{result(id, strings.Repeat("x", 10_000))}})
		n += 2
		fmt.Println("appended", n)
	}
}

// TestKilledMidTurn: a reins killed with SIGKILL in the middle of a turn, with lines appended
// but never flushed, leaves a session file that loads: every line whose Append returned is
// there, at most the line being written is torn, and the history is valid to send.
func TestKilledMidTurn(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "REINS_SESSION_KILL_HELPER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var path string
	acked := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "path":
			path = f[1]
		case len(f) == 2 && f[0] == "appended":
			acked, _ = strconv.Atoi(f[1])
		default:
			t.Fatalf("helper: %s", sc.Text())
		}
		if acked >= 200 {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if path == "" || acked < 200 {
		t.Fatalf("the helper stopped early: path %q, %d lines", path, acked)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := Parse(data)
	if tr.Skipped > 1 {
		t.Errorf("%d lines unreadable, want at most the torn last one", tr.Skipped)
	}
	// acked counts the session line and the messages; the conversation holds the messages.
	if got := len(tr.Messages); got < acked-1 {
		t.Errorf("%d messages read back, but %d were appended before the kill", got, acked-1)
	}
	checkValid(t, tr.Messages)
}

// BenchmarkTurnRecording records what a one-tool turn records — prompt, tool call, result,
// answer — on the real disk: "append" is what the turn waits for while it runs, "flush" adds
// the Flush at its end, as the agent does.
func BenchmarkTurnRecording(b *testing.B) {
	msgs := []llm.Message{
		llm.UserText("read file.txt"),
		{Role: llm.RoleAssistant, Content: []llm.Block{toolUse("t1")}},
		{Role: llm.RoleUser, Content: []llm.Block{result("t1", "     1\thello\n")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("The file has been read.")}},
	}
	for _, flush := range []bool{false, true} {
		name := "append"
		if flush {
			name = "flush"
		}
		b.Run(name, func(b *testing.B) {
			w, err := NewStore(b.TempDir()).Create("/p", "m")
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			for b.Loop() {
				for _, m := range msgs {
					if err := w.AppendMessage(m); err != nil {
						b.Fatal(err)
					}
				}
				if flush {
					if err := w.Flush(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// delayedWriter is a new session's Writer on disk whose background syncer waits delay.
func delayedWriter(t *testing.T, disk *fakeDisk, delay time.Duration) *Writer {
	t.Helper()
	store := NewStore(t.TempDir())
	store.fsync, store.syncDelay = disk.fsync, delay
	w, err := store.Create("/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// TestBurstSharesOneSync: the lines of a turn, appended faster than the sync delay, are
// synced by its Flush with one fsync of the file, not one each.
func TestBurstSharesOneSync(t *testing.T) {
	disk := &fakeDisk{}
	w := delayedWriter(t, disk, time.Hour)
	for i := range 5 {
		if err := w.AppendMessage(llm.UserText(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	disk.mu.Lock()
	defer disk.mu.Unlock()
	if !slices.Equal(disk.covered, []int{6}) {
		t.Errorf("syncs covered %v lines, want one sync covering all 6", disk.covered)
	}
}

// TestLinesAreSyncedWithoutFlush: a line nobody flushes is still synced by the background
// syncer once the delay has passed.
func TestLinesAreSyncedWithoutFlush(t *testing.T) {
	disk := &fakeDisk{}
	w := delayedWriter(t, disk, time.Millisecond)
	if err := w.AppendMessage(llm.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	within(t, "the background sync", func() {
		for disk.lastCovered() != 2 {
			time.Sleep(time.Millisecond)
		}
	})
}

// TestCloseDoesNotWaitForTheDelay: Close ends the background syncer's wait at once and syncs
// the lines itself, however long the delay.
func TestCloseDoesNotWaitForTheDelay(t *testing.T) {
	disk := &fakeDisk{}
	w := delayedWriter(t, disk, time.Hour)
	if err := w.AppendMessage(llm.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	within(t, "Close during the sync delay", func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	if got := disk.lastCovered(); got != 2 {
		t.Errorf("the last sync covered %d lines, want both", got)
	}
}
