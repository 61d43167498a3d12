// Command gensession writes a saved session for bench/resume.sh: -history bytes of
// conversation, then a compaction (its boundary and summary), then -tail turns after it, and
// prints the session's id. The reins session is written through package session's own Writer,
// as a session that ran would be; -legacy writes its last boundary as reins did before
// boundaries recorded the state before them (a resume then reads the whole file).
//
// -format claude writes the same conversation in Claude Code's transcript format instead
// (~/.claude/projects/<cwd with every character but letters and digits as '-'>/<id>.jsonl:
// user and assistant lines chained by uuid, a compact_boundary system line and the summary
// as a user line marked isCompactSummary). It follows Claude Code's published transcripts
// and was not run against Claude Code where it was written (no Claude Code was installed).
//
//	gensession -config ~/.reins -cwd /path/to/project -history 100000000 [-tail 20] [-legacy]
//	gensession -format claude -config ~/.claude -cwd /path/to/project -history 100000000
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/session"
)

// turnBytes is about what one turn of the history weighs: a prompt, and an answer with a
// tool result's worth of text.
const turnBytes = 64 << 10

// tailAnswer is the answer of the turns after the compaction: short, so that the resumed
// conversation stays far from the context window and the measured turn never compacts.
var tailAnswer = strings.Repeat("The file holds one line. ", 40)

func main() {
	format := flag.String("format", "reins", "reins or claude")
	config := flag.String("config", "", "the configuration folder (~/.reins or ~/.claude)")
	cwd := flag.String("cwd", "", "the project folder the session belongs to")
	history := flag.Int64("history", 1<<20, "bytes of conversation before the last compaction")
	tail := flag.Int("tail", 20, "turns after the last compaction")
	legacy := flag.Bool("legacy", false, "write the last boundary without the state before it (reins before resume read from it)")
	flag.Parse()
	if *config == "" || *cwd == "" {
		log.Fatal("-config and -cwd are required")
	}
	answer := strings.Repeat("The file holds one line; nothing else is in it. ", turnBytes/48)
	turns := int(*history / turnBytes)
	var id string
	var err error
	if *format == "claude" {
		id, err = writeClaude(*config, *cwd, turns, *tail, answer)
	} else {
		id, err = writeReins(*config, *cwd, turns, *tail, answer, *legacy)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id)
}

func writeReins(config, cwd string, turns, tail int, answer string, legacy bool) (string, error) {
	store := session.NewStore(config)
	w, err := store.Create(cwd, "claude-sonnet-4-5")
	if err != nil {
		return "", err
	}
	say := func(i int, answer string) error {
		if err := w.AppendMessage(llm.UserText(fmt.Sprintf("Question %d: what is in file.txt?", i))); err != nil {
			return err
		}
		return w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(answer)}})
	}
	for i := range turns {
		if err := say(i, answer); err != nil {
			return "", err
		}
	}
	if err := w.AppendPermissions(agent.SessionState{Mode: "default"}); err != nil {
		return "", err
	}
	b := agent.Boundary{Trigger: agent.TriggerAuto, PreTokens: turns * turnBytes / 4, Messages: 2 * turns}
	summary := llm.UserText("Summary of the conversation so far: the person asked what file.txt holds, many times.")
	if legacy {
		if err := w.Close(); err != nil {
			return "", err
		}
		// As reins wrote them: the type first, then the time, then the rest.
		type oldLine struct {
			Type      string          `json:"type"`
			Timestamp time.Time       `json:"timestamp"`
			Message   *llm.Message    `json:"message,omitempty"`
			Compact   *agent.Boundary `json:"compactMetadata,omitempty"`
		}
		now := time.Now().UTC()
		for _, l := range []oldLine{
			{Type: "compact_boundary", Timestamp: now, Compact: &b},
			{Type: "message", Timestamp: now, Message: &summary},
		} {
			line, _ := json.Marshal(l)
			if err := appendLine(w.Path, line); err != nil {
				return "", err
			}
		}
		t, err := store.Load(context.Background(), cwd, w.ID)
		if err != nil {
			return "", err
		}
		if w, err = store.Reopen(t); err != nil {
			return "", err
		}
	} else if err := w.AppendBoundary(b); err != nil {
		return "", err
	} else if err := w.AppendMessage(summary); err != nil {
		return "", err
	}
	if err := w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Understood.")}}); err != nil {
		return "", err
	}
	for i := range tail {
		if err := say(turns+i, tailAnswer); err != nil {
			return "", err
		}
	}
	return w.ID, w.Close()
}

func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeClaude writes the conversation as Claude Code's transcript.
func writeClaude(config, cwd string, turns, tail int, answer string) (string, error) {
	id := session.NewID()
	dir := filepath.Join(config, "projects", session.Sanitize(cwd))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.Create(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(bw)
	parent := any(nil)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	write := func(l map[string]any) error {
		u := session.NewID()
		l["uuid"], l["parentUuid"], l["sessionId"], l["cwd"], l["timestamp"] = u, parent, id, cwd, now
		l["version"], l["userType"], l["isSidechain"] = "2.1.0", "external", false
		parent = u
		return enc.Encode(l)
	}
	user := func(text string, extra map[string]any) error {
		l := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}}
		for k, v := range extra {
			l[k] = v
		}
		return write(l)
	}
	assistant := func(text string) error {
		return write(map[string]any{"type": "assistant", "message": map[string]any{
			"id": "msg_" + session.NewID(), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 10}}})
	}
	for i := range turns {
		if err := user(fmt.Sprintf("Question %d: what is in file.txt?", i), nil); err != nil {
			return "", err
		}
		if err := assistant(answer); err != nil {
			return "", err
		}
	}
	logical := parent
	parent = nil
	if err := write(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"level": "info", "logicalParentUuid": logical, "compactMetadata": map[string]any{"trigger": "auto", "preTokens": turns * turnBytes / 4}}); err != nil {
		return "", err
	}
	if err := user("This session is being continued from a previous conversation that ran out of context. Summary: the person asked what file.txt holds, many times.", map[string]any{"isCompactSummary": true}); err != nil {
		return "", err
	}
	for i := range tail {
		if err := user(fmt.Sprintf("Question %d: what is in file.txt?", turns+i), nil); err != nil {
			return "", err
		}
		if err := assistant(tailAnswer); err != nil {
			return "", err
		}
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	return id, f.Close()
}
