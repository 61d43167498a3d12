package agent

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/reinsdev/reins/llm"
)

// MessageInfo is what the agent knows of a message besides its content.
type MessageInfo struct {
	// UUID names the message in every front end's output and in the session file, so that a
	// later session can resume up to it (the SDK's resumeSessionAt).
	UUID string
	// Usage is the API's usage of a reply; nil for the other messages. A continued session's
	// context accounting starts from the last one.
	Usage *llm.Usage
}

// InfoRecorder is a [Recorder] that also keeps each message's [MessageInfo]; the agent calls
// AppendMessageInfo instead of AppendMessage when its Recorder has it.
type InfoRecorder interface {
	AppendMessageInfo(m llm.Message, info MessageInfo) error
}

// NewUUID returns a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

type promptUUIDKey struct{}

// WithPromptUUID gives the prompt of the run that ctx starts a uuid of the caller's (the SDK
// caller's user message uuid), recorded with it.
func WithPromptUUID(ctx context.Context, uuid string) context.Context {
	if uuid == "" {
		return ctx
	}
	return context.WithValue(ctx, promptUUIDKey{}, uuid)
}

func promptUUID(ctx context.Context) string {
	id, _ := ctx.Value(promptUUIDKey{}).(string)
	return id
}

// RestoreUsage starts the context accounting of a continued conversation from what the API
// reported for its last reply: usage, covering the first measured messages of the
// conversation the next Run continues. Without it a continued conversation is estimated
// from its text.
func (a *Agent) RestoreUsage(u llm.Usage, measured int) {
	a.acct.set(u, measured)
}
