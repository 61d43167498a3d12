//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestPolicyReplayReadsItsProposalBoundedE2E: reins policy replay --settings reads its
// proposal as a settings file is read. /dev/zero and a FIFO are refused at once, naming what
// they are (they grew without end and blocked deaf to SIGTERM), and a 7.5 MB proposal is
// refused naming the 4 MiB cap (it passed); so is reins policy sign's bundle.
func TestPolicyReplayReadsItsProposalBoundedE2E(t *testing.T) {
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

// TestPolicyReplaySkipsAnUnreadableSessionE2E: a FIFO among the project's session files is
// named in a warning and left out; the readable session is still replayed (its change is
// listed), the end of the report counts what was left out, and the exit status is 1: the
// replay is incomplete. (One such file stopped the whole replay.)
func TestPolicyReplaySkipsAnUnreadableSessionE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755)
	e.write(".reins/settings.local.json", `{"permissions": {"allow": ["Bash(ls)", "Bash(rm:*)"]}}`)
	e.trust()
	e.anthropic(llmtest.NewAnthropicServer(t, auditScenario()...))
	e.run("-p", "clean up").wantCode(0)
	files := e.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	fifo := filepath.Join(filepath.Dir(files[0]), "00000000-0000-4000-8000-000000000001.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	proposed := e.write("proposed.json", `{"permissions": {"deny": ["Bash(rm:*)"]}}`)
	if ended, _ := e.runBounded(20*time.Second, "policy", "replay", "--settings", proposed); !ended {
		t.Fatal("the replay did not end")
	}
	for _, want := range []string{"Bash: allow → deny", "1 session file(s) could not be read and were left out", fifo} {
		if !strings.Contains(e.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, e.stdout)
		}
	}
	if e.code != 1 || !strings.Contains(e.stderr, "warning: "+fifo) || !strings.Contains(e.stderr, "the replay is incomplete") {
		t.Errorf("exit %d, stderr:\n%s", e.code, e.stderr)
	}
}
