package sdkproto

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// BenchmarkHookCallbackRoundTrip measures one hook_callback over the line protocol: Reins
// writes the request, a caller on the other end of a pipe answers at once, Reins delivers the
// answer to the waiting hook.
func BenchmarkHookCallbackRoundTrip(b *testing.B) {
	outR, outW := io.Pipe()
	conn := NewConn(outW)
	h := &hookCallback{conn: conn, id: "hook_0"}
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var l struct {
				RequestID string `json:"request_id"`
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			conn.deliver(responseBody{Subtype: "success", RequestID: l.RequestID,
				Response: json.RawMessage(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`)})
		}
	}()
	input := []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}`)
	b.ReportAllocs()
	for b.Loop() {
		raw, err := h.Handle(context.Background(), input)
		if err != nil || raw.Stdout == "" {
			b.Fatal(fmt.Sprint(raw, err))
		}
	}
	outW.Close()
}
