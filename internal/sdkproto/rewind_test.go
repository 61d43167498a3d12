package sdkproto

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// fakeCheckpoints records what the server asks of it.
type fakeCheckpoints struct {
	mu     sync.Mutex
	begun  []string
	rewind []string
}

func (f *fakeCheckpoints) Begin(ctx context.Context, id, label string) (context.Context, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.begun = append(f.begun, id+" "+label)
	return ctx, nil
}

func (f *fakeCheckpoints) Rewind(_ context.Context, id string, dry bool) (RewindFilesResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != "u1" {
		return RewindFilesResult{}, errors.New("no checkpoint for that message")
	}
	f.rewind = append(f.rewind, id)
	res := RewindFilesResult{CanRewind: true, FilesChanged: []string{"/p/a.go"}, Insertions: 1}
	if !dry {
		n := 0
		res.SkippedLinks = &n
	}
	return res, nil
}

func TestRewindFilesNamesAMessageByItsUUID(t *testing.T) {
	cp := &fakeCheckpoints{}
	s := start(t, llmtest.NewScript(say("ok")), func(srv *Server) { srv.Handlers.Checkpoints = cp })
	s.send(`{"type":"user","message":{"role":"user","content":"Change a.go"},"parent_tool_use_id":null,"session_id":"","uuid":"u1"}`)
	s.result()
	cp.mu.Lock()
	begun := slices.Clone(cp.begun)
	cp.mu.Unlock()
	if !slices.Equal(begun, []string{"u1 Change a.go"}) {
		t.Errorf("checkpoints begun %v", begun)
	}
	// A message without a uuid still gets a checkpoint, so that its changes are kept.
	s.user("no uuid")
	s.result()
	cp.mu.Lock()
	begun = slices.Clone(cp.begun)
	cp.mu.Unlock()
	if len(begun) != 2 || !strings.HasSuffix(begun[1], " no uuid") || strings.HasPrefix(begun[1], " ") {
		t.Errorf("checkpoints begun %v", begun)
	}
	tests := []struct {
		req      string
		can      bool
		skipped  any
		errorHas string
	}{
		{`{"subtype":"rewind_files","user_message_id":"u1","dry_run":true}`, true, nil, ""},
		{`{"subtype":"rewind_files","user_message_id":"u1"}`, true, float64(0), ""},
		{`{"subtype":"rewind_files","user_message_id":"u9"}`, false, nil, "no checkpoint"},
	}
	for i, tt := range tests {
		id := string(rune('a' + i))
		s.send(`{"type":"control_request","request_id":"` + id + `","request":` + tt.req + `}`)
		resp := s.response(id)
		r, _ := resp["response"].(map[string]any)
		if resp["subtype"] != "success" || r["canRewind"] != tt.can || r["skippedLinks"] != tt.skipped {
			t.Errorf("%s: %v", tt.req, resp)
		}
		if tt.errorHas != "" && r["error"] != "no checkpoint for that message" {
			t.Errorf("%s: error %v", tt.req, r["error"])
		}
	}
	s.send(`{"type":"control_request","request_id":"z","request":{"subtype":"rewind_files"}}`)
	if resp := s.response("z"); resp["subtype"] != "error" {
		t.Errorf("a request without user_message_id: %v", resp)
	}
}
