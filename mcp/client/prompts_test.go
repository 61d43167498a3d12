package client

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPromptsListAndGet(t *testing.T) {
	m := start(t, Options{}, testEntry("my.srv", "basic"), testEntry("many", "many:2"))
	ps, err := m.Prompts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []Prompt{{Server: "my.srv", Name: "greet", Description: "Greets someone.", Command: "mcp__my_srv__greet",
		Args: []PromptArg{{Name: "name", Description: "Who to greet", Required: true}, {Name: "style", Description: "How"}}}}
	if diff := cmp.Diff(want, ps); diff != "" {
		t.Fatalf("prompts (-want +got):\n%s", diff)
	}
	msgs, err := m.GetPrompt(t.Context(), ps[0], map[string]string{"name": "Ada", "style": "warm"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]PromptMessage{{Role: "user", Text: "Say hello to Ada."}, {Role: "user", Text: "Style: warm"}}, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if _, err := m.GetPrompt(t.Context(), ps[0], map[string]string{"style": "warm"}); err == nil || !strings.Contains(err.Error(), "needs the argument name") {
		t.Errorf("missing required argument: %v", err)
	}
	if _, err := m.GetPrompt(t.Context(), Prompt{Server: "nope", Name: "x"}, nil); err == nil {
		t.Error("a prompt of an unknown server ran")
	}
}
