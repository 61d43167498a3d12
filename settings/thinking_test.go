package settings

import (
	"strings"
	"testing"
)

// TestAlwaysThinking: alwaysThinkingEnabled is read from every source, the later one winning
// as for defaultMode; absent or null is nil; any other kind of value is an error naming the
// key and its position.
func TestAlwaysThinking(t *testing.T) {
	e := newEnv(t)
	if got := e.load(t).AlwaysThinking(); got != nil {
		t.Fatalf("no file: %v, want nil", *got)
	}
	e.write(t, "user", `{"alwaysThinkingEnabled": true}`)
	if got := e.load(t).AlwaysThinking(); got == nil || !*got {
		t.Fatalf("user true: %v", got)
	}
	e.write(t, "projectClaude", `{"alwaysThinkingEnabled": false}`)
	if got := e.load(t).AlwaysThinking(); got == nil || *got {
		t.Fatalf("project false over user true: %v", got)
	}
	e.write(t, "projectClaude", `{"alwaysThinkingEnabled": null}`)
	if got := e.load(t).AlwaysThinking(); got == nil || !*got {
		t.Fatalf("null leaves the user's true: %v", got)
	}
	e.write(t, "local", "{\n  \"alwaysThinkingEnabled\": \"yes\"\n}")
	_, err := Load(e.opts)
	if err == nil || !strings.Contains(err.Error(), "alwaysThinkingEnabled must be true or false, not a string") || !strings.Contains(err.Error(), ":2:") {
		t.Fatalf("error = %v, want one naming the key, its kind and line 2", err)
	}
}
