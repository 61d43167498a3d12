package hooks

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Event names a hook event, as Claude Code spells it in settings.
type Event string

const (
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	PermissionRequest  Event = "PermissionRequest"
	PermissionDenied   Event = "PermissionDenied"
	UserPromptSubmit   Event = "UserPromptSubmit"
	Stop               Event = "Stop"
	SubagentStop       Event = "SubagentStop"
	SessionStart       Event = "SessionStart"
	SessionEnd         Event = "SessionEnd"
	Notification       Event = "Notification"
	PreCompact         Event = "PreCompact"
)

// Events are every event Reins knows, in the order `reins hooks list` shows them.
var Events = []Event{PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, PermissionDenied,
	UserPromptSubmit, Stop, SubagentStop, SessionStart, SessionEnd, Notification, PreCompact}

// DefaultTimeout bounds a hook that sets no timeout.
const DefaultTimeout = 60 * time.Second

// Hook is one configured hook.
type Hook struct {
	Event Event
	// Matcher selects what the hook sees: tool names for the tool events, the source for
	// SessionStart, the trigger for PreCompact, the notification type for Notification. Empty
	// or "*" matches everything; letters, digits, _ and | are exact names; anything else is a
	// regular expression.
	Matcher string
	Command string
	// Timeout is zero for DefaultTimeout.
	Timeout time.Duration
	// Origin says where the hook was configured (file:line:col), for messages.
	Origin string
	// Handler does the hook's work; nil runs Command in a shell.
	Handler Handler
}

// Name is how messages and the stream name the hook: its command, what a handler says it
// runs (an http hook's URL, an mcp_tool hook's server and tool), or where it was configured.
func (h *Hook) Name() string {
	if h.Command != "" {
		return h.Command
	}
	if d, ok := h.Handler.(interface{ Describe() string }); ok {
		return d.Describe()
	}
	return h.Origin
}

var plainMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]+$`) })

// CompileMatcher checks a matcher and returns its test. Like Claude Code, a regular expression
// matches anywhere in the value unless it is anchored.
func CompileMatcher(m string) (func(string) bool, error) {
	switch {
	case m == "" || m == "*":
		return func(string) bool { return true }, nil
	case plainMatcher().MatchString(m):
		names := strings.Split(m, "|")
		return func(v string) bool {
			for _, n := range names {
				if n == v {
					return true
				}
			}
			return false
		}, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, fmt.Errorf("matcher %q is not a valid regular expression: %w", m, err)
	}
	return re.MatchString, nil
}
