package toolcall

import "context"

// Capturer records, before an allowed call runs, what the call may change, so that it can be
// put back (the checkpoint package's capture implements it). The returned done is called
// once the call has returned; a capture it cannot make it records as not captured itself,
// and the call runs regardless: a checkpoint is a way back, never a permission.
type Capturer interface {
	BeforeCall(ctx context.Context, c Call, input any) (done func())
}

type capturerKey struct{}

// WithCapturer returns ctx with the capturer of the turn it belongs to. A front end sets it
// per user message; everything run under ctx — sub-agents, background tasks started in the
// turn — is captured into that turn's checkpoint.
func WithCapturer(ctx context.Context, c Capturer) context.Context {
	return context.WithValue(ctx, capturerKey{}, c)
}

// capturerOf is ctx's capturer, nil when there is none.
func capturerOf(ctx context.Context) Capturer {
	c, _ := ctx.Value(capturerKey{}).(Capturer)
	return c
}

// CarryCapturer returns to with from's capturer, if any: work a turn starts under a context of
// its own (a background sub-agent) is still captured into that turn.
func CarryCapturer(from, to context.Context) context.Context {
	if c := capturerOf(from); c != nil {
		return WithCapturer(to, c)
	}
	return to
}
