package sdkproto

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/reinsdev/reins/hooks"
)

// hookMatcher is one entry of initialize's hooks: the caller's functions for one matcher, by
// the ids it chose. Fields the SDK sends that reins does not read (contextOnly,
// replacedByFrame, whenUnanswered) change nothing reins does.
type hookMatcher struct {
	Matcher         string   `json:"matcher"`
	HookCallbackIDs []string `json:"hookCallbackIds"`
	// Timeout is in seconds; zero is hooks.DefaultTimeout.
	Timeout   float64 `json:"timeout"`
	OnFailure string  `json:"onFailure"`
}

// hookCallbackRequest asks the caller to run one of its hook functions.
type hookCallbackRequest struct {
	Subtype    string          `json:"subtype"`
	CallbackID string          `json:"callback_id"`
	Input      json.RawMessage `json:"input"`
	ToolUseID  string          `json:"tool_use_id,omitempty"`
}

// HookCallbacks turns initialize's hooks ({Event: [{matcher, hookCallbackIds, timeout,
// onFailure}]}) into hooks whose work is a hook_callback request to the caller. The caller's
// answer is read exactly as a command hook's JSON output, so it ranks the same (a hook's allow
// never outranks a deny rule). An event reins does not run is refused, not ignored: the caller
// expects its function to guard something. Call it from OnInitialize.
func (s *Server) HookCallbacks(raw map[string]json.RawMessage) ([]hooks.Hook, error) {
	events := make([]string, 0, len(raw))
	for ev := range raw {
		events = append(events, ev)
	}
	sort.Strings(events)
	var out []hooks.Hook
	for _, ev := range events {
		if !slices.Contains(hooks.Events, hooks.Event(ev)) {
			names := make([]string, len(hooks.Events))
			for i, e := range hooks.Events {
				names[i] = string(e)
			}
			return nil, fmt.Errorf("initialize hooks: event %q is not supported by reins (it runs %s)", ev, strings.Join(names, ", "))
		}
		if ev == string(hooks.SessionEnd) {
			// The session ends when the caller has closed its input: the callback could never
			// be answered. (SessionStart's run before the first turn, after initialize.)
			return nil, fmt.Errorf("initialize hooks: %s callbacks are not supported over the SDK protocol (configure a %s command hook in settings instead)", ev, ev)
		}
		var ms []hookMatcher
		d := json.NewDecoder(bytes.NewReader(raw[ev]))
		if err := d.Decode(&ms); err != nil {
			return nil, fmt.Errorf("initialize hooks: %s: not a list of {matcher, hookCallbackIds}: %w", ev, err)
		}
		for i, m := range ms {
			where := fmt.Sprintf("initialize hooks: %s[%d]", ev, i)
			if _, err := hooks.CompileMatcher(m.Matcher); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if len(m.HookCallbackIDs) == 0 {
				return nil, fmt.Errorf("%s: no hookCallbackIds", where)
			}
			if m.Timeout < 0 {
				return nil, fmt.Errorf("%s: timeout must not be negative", where)
			}
			var block bool
			switch m.OnFailure {
			case "", "continue":
			case "block":
				block = true
			default:
				return nil, fmt.Errorf("%s: onFailure must be continue or block, not %q", where, m.OnFailure)
			}
			for _, id := range m.HookCallbackIDs {
				if id == "" {
					return nil, fmt.Errorf("%s: empty callback id", where)
				}
				out = append(out, hooks.Hook{
					Event: hooks.Event(ev), Matcher: m.Matcher,
					Timeout: time.Duration(m.Timeout * float64(time.Second)),
					Origin:  "SDK hook callback " + id,
					Handler: &hookCallback{conn: s.conn, id: id, block: block},
				})
			}
		}
	}
	return out, nil
}

// hookCallback is a hooks.Handler that runs the caller's hook function.
type hookCallback struct {
	conn  *Conn
	id    string
	block bool // onFailure: block
}

// Handle sends hook_callback and answers with the caller's JSON as a command hook's standard
// output. A failure (an error response, a caller gone) is a non-blocking hook error, or a block
// when the caller registered the callback with onFailure: block. The runner's timeout ends the
// wait and withdraws the request.
func (h *hookCallback) Handle(ctx context.Context, input []byte) (hooks.Raw, error) {
	var in struct {
		ToolUseID string `json:"tool_use_id"`
	}
	_ = json.Unmarshal(input, &in) // events without a tool have no tool_use_id
	raw, err := h.conn.Request(ctx, hookCallbackRequest{Subtype: "hook_callback", CallbackID: h.id, Input: input, ToolUseID: in.ToolUseID})
	if err == nil && h.block {
		if verr := hooks.CheckOutput(string(raw)); verr != nil {
			err = verr
		}
	}
	switch {
	case err == nil:
		return hooks.Raw{Stdout: string(raw)}, nil
	case h.block && ctx.Err() == nil:
		return hooks.Raw{ExitCode: 2, Stderr: fmt.Sprintf("SDK hook callback %s failed (onFailure: block): %v", h.id, err)}, nil
	}
	return hooks.Raw{}, fmt.Errorf("SDK hook callback %s: %w", h.id, err)
}
