package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/session"
)

// runGuarded runs the binary like e.run, but kills it after a generous deadline and fails the
// test: a hostile session file must end the run with an error, not hang it. The deadline is a
// guard against a hang, not a measurement.
func (e *e2e) runGuarded(args ...string) *e2e {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir, cmd.Env = e.dir, e.env
	cmd.Stdin = strings.NewReader(e.stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		e.t.Fatalf("reins %v did not exit; stderr:\n%s", args, errOut.String())
	}
	e.stdout, e.stderr, e.code = out.String(), errOut.String(), 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		e.code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return e
}

// TestResumeOfHostileSessionFileFails: a session file that is a symlink to /dev/zero or
// /dev/urandom, a FIFO, a socket or over the size cap (which grew to 24 GB, or blocked for
// ever ignoring SIGTERM) ends --resume and --continue at once with an error naming the file,
// and exit code 1; the model is never asked.
func TestResumeOfHostileSessionFileFails(t *testing.T) {
	bin := reinsBinary(t)
	for _, h := range boundedfiletest.Hostile(session.MaxFileBytes) {
		if h.Name == "folder" {
			continue // a folder is not a session: --continue passes over it
		}
		t.Run(h.Name, func(t *testing.T) {
			e := newE2E(t, bin)
			srv := llmtest.NewAnthropicServer(t)
			e.anthropic(srv)
			dir := session.NewStore(filepath.Join(e.home, ".reins")).Dir(e.dir)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			id := session.NewID()
			p := filepath.Join(dir, id+".jsonl")
			h.Make(t, p)
			want := p + " " + h.Want
			if strings.HasPrefix(h.Want, "is too large") {
				// No compaction in its last 256 MiB: the file is read whole, and its one line
				// of zeros is over the line cap.
				want = p + ": line 1 is too long"
			}
			for _, args := range [][]string{{"-p", "--resume", id, "hi"}, {"-p", "--continue", "hi"}} {
				e.runGuarded(args...)
				if e.code != exitError || !strings.Contains(e.stderr, want) {
					t.Errorf("reins %v: exit %d, want %d and %q in stderr:\n%s", args, e.code, exitError, want, e.stderr)
				}
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the model was asked %d times", n)
			}
		})
	}
}
