package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPolicyReplayReadsItsProposalBoundedE2E: reins policy replay --settings reads its
// proposal as a settings file is read. /dev/zero and a FIFO are refused at once, naming what
// they are (they grew without end and blocked deaf to SIGTERM), and a 7.5 MB proposal is
// refused naming the 4 MiB cap (it passed); so is reins policy sign's bundle.
func TestPolicyReplayReadsItsProposalBoundedE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and /dev/zero are POSIX")
	}
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	fifo := filepath.Join(e.dir, "proposal.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(e.dir, "big.json")
	rules := strings.Repeat(`"Bash(echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)",`, 75_000)
	if err := os.WriteFile(big, []byte(`{"permissions": {"deny": [`+rules+`"Bash(rm:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"policy", "replay", "--settings", "/dev/zero"}, "/dev/zero is a character device, not a regular file"},
		{[]string{"policy", "replay", "--settings", fifo}, fifo + " is a FIFO, not a regular file"},
		{[]string{"policy", "replay", "--settings", big}, "settings files may be at most 4194304 bytes"},
		{[]string{"policy", "sign", "--key", "/dev/zero", big}, "/dev/zero is a character device"},
		{[]string{"policy", "sign", "--key", fifo, big}, fifo + " is a FIFO"},
	} {
		ended, termed := e.runBounded(10*time.Second, tt.args...)
		switch {
		case !ended:
			t.Errorf("reins %s did not end within 10s (SIGTERM ended it: %v)", strings.Join(tt.args, " "), termed)
		case e.code != 1 || !strings.Contains(e.stderr, tt.want):
			t.Errorf("reins %s: exit %d, stderr:\n%s\nwant exit 1 and %q", strings.Join(tt.args, " "), e.code, e.stderr, tt.want)
		}
	}
}
