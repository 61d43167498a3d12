//go:build unix

// FIFOs are Unix's: Windows file systems hold none.

package session

import (
	"os"
	"syscall"
	"testing"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
)

// TestSessionSwappedForAFIFOBeforeReopenIsRefused: the file Load read is replaced by a FIFO
// before Reopen opens it to append; the open must neither wait for a reader nor write to it.
func TestSessionSwappedForAFIFOBeforeReopenIsRefused(t *testing.T) {
	store := NewStore(t.TempDir())
	w, err := store.Create("/work/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	tr, err := store.Load(t.Context(), "/work/p", w.ID)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(tr.Path)
	if err := boundedfiletest.Mkfifo(tr.Path); err != nil {
		t.Fatal(err)
	}
	// With a reader: a plain open for writing succeeds at once, and the type check must refuse.
	r, err := os.OpenFile(tr.Path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	within(t, "Reopen", func() { _, err = store.Reopen(tr) })
	wantRefused(t, "Reopen with a reader", err, tr.Path, "is a FIFO, not a regular file")
	r.Close()
	// Without one: the open itself must not wait.
	within(t, "Reopen", func() { _, err = store.Reopen(tr) })
	if err == nil {
		t.Error("Reopen of a FIFO without a reader succeeded")
	}
}
