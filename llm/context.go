package llm

import "context"

// Transcript is the conversation a tool call was proposed in, as the agent held it when the
// call was decided. A sub-agent's transcript names the transcript of the call that started
// it as Parent, when that call's context reached the sub-agent.
type Transcript struct {
	Messages []Message
	// Delegated marks a sub-agent's conversation: its user messages were written by the
	// parent agent, not by a person.
	Delegated bool
	Parent    *Transcript
}

type transcriptKey struct{}

// WithTranscript returns ctx carrying msgs as the conversation of the calls decided under it.
// A transcript already in ctx (a parent agent's) becomes the new one's Parent. msgs is not
// copied: the caller must not change the messages while ctx is in use.
func WithTranscript(ctx context.Context, msgs []Message, delegated bool) context.Context {
	t := &Transcript{Messages: msgs, Delegated: delegated}
	if p, ok := ctx.Value(transcriptKey{}).(*Transcript); ok {
		t.Parent = p
	}
	return context.WithValue(ctx, transcriptKey{}, t)
}

// TranscriptOf returns the transcript ctx carries, if any.
func TranscriptOf(ctx context.Context) (*Transcript, bool) {
	t, ok := ctx.Value(transcriptKey{}).(*Transcript)
	return t, ok
}

// UsageReporter receives the usage of a request made on a run's behalf outside its own turns
// (an auto-mode classifier's), so that it counts in the run's cost.
type UsageReporter func(model string, u Usage)

type usageKey struct{}

// WithUsageReporter returns ctx whose side requests report their usage to r.
func WithUsageReporter(ctx context.Context, r UsageReporter) context.Context {
	return context.WithValue(ctx, usageKey{}, r)
}

// ReportUsage gives u to the reporter ctx carries; without one it is dropped.
func ReportUsage(ctx context.Context, model string, u Usage) {
	if r, ok := ctx.Value(usageKey{}).(UsageReporter); ok && r != nil {
		r(model, u)
	}
}
