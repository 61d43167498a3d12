package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/session"
)

// TestRewindCommandE2E: a stream-json session with checkpoints (as the SDK starts it) removes
// src; reins rewind lists its checkpoint, a dry run changes nothing, and --to 1 puts src back;
// --conversation without --to is a usage error.
func TestRewindCommandE2E(t *testing.T) {
	e := removeSrcSession(t)
	if _, err := os.Stat(filepath.Join(e.dir, "src")); err == nil {
		t.Fatalf("src was not removed:\n%s\n%s", e.stdout, e.stderr)
	}

	e.stdin = ""
	e.run("rewind").wantCode(0)
	if !strings.Contains(e.stdout, `1  0b6f6c3e-1a2b-4c3d-8e9f-001122334455  "remove src"  2 file(s) changed since`) {
		t.Errorf("the list:\n%s", e.stdout)
	}
	e.run("rewind", "--to", "1", "--dry-run").wantCode(0)
	if _, err := os.Stat(filepath.Join(e.dir, "src")); err == nil || !strings.Contains(e.stdout, "Dry run") || !strings.Contains(e.stdout, "Put back 2 files") {
		t.Errorf("the dry run (src there: %v):\n%s", err == nil, e.stdout)
	}
	e.run("rewind", "--conversation").wantCode(2)
	e.run("rewind", "--to", "1").wantCode(0)
	for p, want := range map[string]string{"src/main.go": "package main\n", "src/.env": "TOKEN=1\n"} {
		if got, err := os.ReadFile(filepath.Join(e.dir, p)); err != nil || string(got) != want {
			t.Errorf("%s = %q (%v)", p, got, err)
		}
	}
	e.run("rewind", "--to", "7").wantCode(2)
}

// TestAFailedRewindIsNotDoneE2E: a session removes src; one backup is swapped on disk for
// other content. reins rewind --to 1 puts back what it can, names the file it could not and
// exits non-zero, and the checkpoint is kept: once the backup is right again, the same
// command puts that file back too (it used to say "nothing to put back").
func TestAFailedRewindIsNotDoneE2E(t *testing.T) {
	e := removeSrcSession(t)
	e.stdin = ""
	sum := sha256.Sum256([]byte("package main\n"))
	id := hex.EncodeToString(sum[:])
	blobs, _ := filepath.Glob(filepath.Join(e.home, ".reins", "checkpoints", "*", "blobs", id[:2], id[2:]))
	if len(blobs) != 1 {
		t.Fatalf("the backup of src/main.go: %v", blobs)
	}
	if err := os.WriteFile(blobs[0], []byte("package evil\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	e.run("rewind", "--to", "1").wantCode(1)
	main := filepath.Join(e.dir, "src", "main.go")
	if !strings.Contains(e.stdout, "Could not put back "+main) || !strings.Contains(e.stderr, "the rewind is not done") {
		t.Errorf("the failed rewind says:\n%s\n%s", e.stdout, e.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(e.dir, "src/.env")); err != nil || string(got) != "TOKEN=1\n" {
		t.Errorf("src/.env = %q (%v): the file it could put back", got, err)
	}
	if _, err := os.Stat(main); err == nil {
		t.Errorf("src/main.go was written from a swapped backup")
	}
	e.run("rewind").wantCode(0)
	if !strings.Contains(e.stdout, "2 file(s) changed since") {
		t.Errorf("the checkpoint after a failed rewind:\n%s", e.stdout)
	}

	if err := os.WriteFile(blobs[0], []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.run("rewind", "--to", "1").wantCode(0)
	if got, err := os.ReadFile(main); err != nil || string(got) != "package main\n" {
		t.Errorf("src/main.go = %q (%v) after the retry:\n%s", got, err, e.stdout)
	}
	e.run("rewind", "--to", "1").wantCode(0)
	if !strings.Contains(e.stdout, "nothing to put back") {
		t.Errorf("a rewind after the retry:\n%s", e.stdout)
	}
}

// TestRewindBothE2E: a stream-json session (as the SDK starts it, with checkpoints) of two
// turns, each writing notes.txt. reins rewind --both --to 2 puts notes.txt back as the first
// turn left it and forks the conversation before the second prompt into a new session, which
// reins --resume continues; the saved session keeps every line.
func TestRewindBothE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Write", `{"file_path":"notes.txt","content":"one\n"}`)),
		llmtest.Say("Wrote one."),
		llmtest.UseTools(llmtest.Call("Write", `{"file_path":"notes.txt","content":"two\n"}`)),
		llmtest.Say("Wrote two."))
	e.anthropic(srv)
	e.env = append(e.env, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true")
	user := func(text, uuid string) string {
		return `{"type":"user","message":{"role":"user","content":"` + text + `"},"parent_tool_use_id":null,"session_id":"","uuid":"` + uuid + `"}` + "\n"
	}
	e.stdin = user("FIRST-PROMPT", "11111111-1111-4111-8111-111111111111") + user("SECOND-PROMPT", "22222222-2222-4222-8222-222222222222")
	e.run("-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--allowedTools", "Write").wantCode(0)
	if got, _ := os.ReadFile(filepath.Join(e.dir, "notes.txt")); string(got) != "two\n" {
		t.Fatalf("notes.txt = %q after the two turns\n%s", got, e.stderr)
	}
	original := e.onlySession(t)
	originalID := strings.TrimSuffix(filepath.Base(e.sessionFiles()[0]), ".jsonl")
	e.stdin = ""

	e.run("rewind", "--both", "--to", "2", "--dry-run").wantCode(0)
	if got, _ := os.ReadFile(filepath.Join(e.dir, "notes.txt")); string(got) != "two\n" || len(e.sessionFiles()) != 1 {
		t.Errorf("the dry run changed something (notes.txt %q, %d sessions)", got, len(e.sessionFiles()))
	}
	if !strings.Contains(e.stdout, "Conversation: would write the 4 message(s) before message 2 as a new session") || !strings.Contains(e.stdout, "Put back 1 file") {
		t.Errorf("the dry run says:\n%s", e.stdout)
	}

	e.run("rewind", "--both", "--to", "2").wantCode(0)
	if got, _ := os.ReadFile(filepath.Join(e.dir, "notes.txt")); string(got) != "one\n" {
		t.Errorf("notes.txt = %q, want the first turn's", got)
	}
	m := regexp.MustCompile(`Resume it with: reins --resume (\S+)`).FindStringSubmatch(e.stdout)
	if m == nil || !strings.Contains(e.stdout, "Put back 1 file") {
		t.Fatalf("the rewind says:\n%s", e.stdout)
	}
	fork, err := session.NewStore(filepath.Join(e.home, ".reins")).Load(t.Context(), e.dir, m[1])
	if err != nil {
		t.Fatal(err)
	}
	if n := len(fork.Messages); n != 4 || !strings.Contains(messagesText(fork.Messages), "FIRST-PROMPT") ||
		strings.Contains(messagesText(fork.Messages), "SECOND-PROMPT") || fork.Messages[n-1].Text() != "Wrote one." {
		t.Errorf("the fork holds %d messages: %s", n, messagesText(fork.Messages))
	}
	again, err := session.NewStore(filepath.Join(e.home, ".reins")).Load(t.Context(), e.dir, originalID)
	if err != nil || len(again.Messages) != len(original.Messages) {
		t.Errorf("the saved session changed: %d messages, was %d (%v)", len(again.Messages), len(original.Messages), err)
	}

	next := llmtest.NewAnthropicServer(t, llmtest.Say("Going on."))
	e.anthropic(next).run("--resume", m[1], "-p", "THIRD-PROMPT").wantCode(0)
	var body struct {
		Messages []llm.Message `json:"messages"`
	}
	if err := json.Unmarshal(next.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	sent := messagesText(body.Messages)
	if !strings.Contains(sent, "FIRST-PROMPT") || strings.Contains(sent, "SECOND-PROMPT") || !strings.HasSuffix(sent, "THIRD-PROMPT") {
		t.Errorf("the resumed fork sent %s", sent)
	}
}

// messagesText is the messages' text, one message a line.
func messagesText(ms []llm.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text())
	}
	return strings.Join(out, "\n")
}

// removeSrcSession runs, as the SDK starts it (stream-json, with checkpoints), a session whose
// one turn removes src (main.go and .env), and returns its environment.
func removeSrcSession(t *testing.T) *e2e {
	t.Helper()
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	os.MkdirAll(filepath.Join(e.dir, "src"), 0o755)
	e.write("src/main.go", "package main\n")
	e.write("src/.env", "TOKEN=1\n")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf src"}`)),
		llmtest.Say("Removed."))
	e.anthropic(srv)
	e.env = append(e.env, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true")
	e.stdin = `{"type":"user","message":{"role":"user","content":"remove src"},"parent_tool_use_id":null,"session_id":"","uuid":"0b6f6c3e-1a2b-4c3d-8e9f-001122334455"}` + "\n"
	e.run("--input-format", "stream-json", "--output-format", "stream-json", "--allowedTools", "Bash(rm -rf src)").wantCode(0)
	return e
}
