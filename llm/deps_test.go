package llm_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the layering: package llm uses only the standard
// library, and only llm/anthropic may pull in the Anthropic SDK, so that
// the agent, the OpenAI-compatible adapter and the test fakes build fast
// and never see SDK types.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	tests := []struct {
		pkg     string
		allowed func(dep string) bool
	}{
		{"github.com/reinsdev/reins/llm", func(dep string) bool { return false }},
		{"github.com/reinsdev/reins/llm/openaicompat", isLLM},
		{"github.com/reinsdev/reins/llm/llmtest", isLLM},
		{"github.com/reinsdev/reins/llm/anthropic", func(dep string) bool {
			return isLLM(dep) || !strings.HasPrefix(dep, "github.com/reinsdev/")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			for _, dep := range strings.Fields(string(out)) {
				if dep != tt.pkg && !tt.allowed(dep) {
					t.Errorf("%s depends on %s", tt.pkg, dep)
				}
			}
		})
	}
}

func isLLM(dep string) bool { return dep == "github.com/reinsdev/reins/llm" }
