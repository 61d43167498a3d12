//go:build !windows

// Not on Windows: the test runs the go command, which a Windows test binary run under Wine
// cannot (the toolchain is the Linux host's). The import graph it checks is a property of
// the source, checked on the host.

package llm_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the layering: package llm and its adapters use only
// the standard library (and llm and llm/internal), so that the agent and the test fakes build
// fast and never see SDK types. The Anthropic SDK is imported by
// llm/anthropic's tests only, as their oracle.
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
		{"github.com/reinsdev/reins/llm/anthropic", isLLM},
		{"github.com/reinsdev/reins/llm/internal/sse", func(dep string) bool { return false }},
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

func isLLM(dep string) bool {
	return dep == "github.com/reinsdev/reins/llm" || strings.HasPrefix(dep, "github.com/reinsdev/reins/llm/internal/")
}
