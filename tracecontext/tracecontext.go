// Package tracecontext carries a W3C trace context (the traceparent and tracestate headers) in a
// context.Context as two plain strings, so that the packages which start processes — hooks, the
// Bash tool, stdio MCP servers — can hand it on as TRACEPARENT and TRACESTATE without knowing
// OpenTelemetry. Only the telemetry package puts a trace context here; with telemetry off the
// context holds none and [Env] adds nothing.
//
// The values are checked when they are put in, not when they are read: a context never carries
// a traceparent that is not of the W3C form, so a child process never sees a malformed one.
package tracecontext

import "context"

type key struct{}

type carried struct{ parent, state string }

// With returns ctx carrying traceparent and tracestate. A traceparent that is not of the W3C
// form (version 00: "00-<32 hex>-<16 hex>-<2 hex>", ids not all zero) leaves ctx as it is; a
// tracestate too long for one header (more than 512 bytes) or with a control character or a
// newline is dropped.
func With(ctx context.Context, traceparent, tracestate string) context.Context {
	if !ValidParent(traceparent) {
		return ctx
	}
	if !validState(tracestate) {
		tracestate = ""
	}
	return context.WithValue(ctx, key{}, carried{traceparent, tracestate})
}

// From returns the trace context ctx carries ("" when none).
func From(ctx context.Context) (traceparent, tracestate string) {
	c, _ := ctx.Value(key{}).(carried)
	return c.parent, c.state
}

// Env returns env with TRACEPARENT and TRACESTATE set to the trace context ctx carries, any
// inherited values of them removed first (a stale parent from reins' own environment would link
// the child to the wrong trace). With no trace context, env is returned as it is.
func Env(ctx context.Context, env []string) []string {
	parent, state := From(ctx)
	if parent == "" {
		return env
	}
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if hasName(kv, "TRACEPARENT") || hasName(kv, "TRACESTATE") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "TRACEPARENT="+parent)
	if state != "" {
		out = append(out, "TRACESTATE="+state)
	}
	return out
}

func hasName(kv, name string) bool {
	return len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name
}

// ValidParent reports whether s is a version-00 W3C traceparent with non-zero ids.
func ValidParent(s string) bool {
	// 00-<trace id: 32>-<span id: 16>-<flags: 2>
	if len(s) != 55 || s[:3] != "00-" || s[35] != '-' || s[52] != '-' {
		return false
	}
	trace, span, flags := s[3:35], s[36:52], s[53:]
	return lowerHex(trace) && lowerHex(span) && lowerHex(flags) && !zeros(trace) && !zeros(span)
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func zeros(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}

func validState(s string) bool {
	if len(s) > 512 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}
