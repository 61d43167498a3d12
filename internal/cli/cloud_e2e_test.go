package cli

import (
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/bedrock/bedrocktest"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/llm/vertex/vertextest"
)

// TestCloudProvidersE2E runs the real binary against fakes of Amazon Bedrock and Google Vertex
// AI, each with its own authentication checked for real (a SigV4 signature, a service
// account's token exchange), switched on by Claude Code's variables: a turn with a denied
// command goes the whole way, and the first-party key present in the environment never
// travels to either cloud.
func TestCloudProvidersE2E(t *testing.T) {
	bin := reinsBinary(t)
	turns := func() []llmtest.Turn {
		return []llmtest.Turn{
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf build"}`)),
			llmtest.Say("Not allowed to delete build."),
		}
	}
	tests := []struct {
		name      string
		env       func(t *testing.T, api *llmtest.Server) []string
		wantModel string
	}{
		{name: "bedrock", wantModel: `"model":"eu.anthropic.claude-haiku-4-5-20251001-v1:0"`, env: func(t *testing.T, api *llmtest.Server) []string {
			keys := bedrocktest.Credentials{AccessKeyID: "AKIDE2E", SecretAccessKey: "e2e-secret", Region: "eu-west-3"}
			srv := bedrocktest.NewServer(t, api, keys)
			return []string{"CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=eu-west-3", "AWS_ACCESS_KEY_ID=AKIDE2E", "AWS_SECRET_ACCESS_KEY=e2e-secret",
				"AWS_EC2_METADATA_DISABLED=true", "ANTHROPIC_BEDROCK_BASE_URL=" + srv.URL}
		}},
		{name: "vertex", wantModel: `"model":"claude-haiku-4-5@20251001"`, env: func(t *testing.T, api *llmtest.Server) []string {
			srv := vertextest.NewServer(t, api, "acme-ai", "global")
			return []string{"CLAUDE_CODE_USE_VERTEX=1", "CLOUD_ML_REGION=global", "ANTHROPIC_VERTEX_PROJECT_ID=acme-ai",
				"GOOGLE_APPLICATION_CREDENTIALS=" + srv.CredentialsFile, "ANTHROPIC_VERTEX_BASE_URL=" + srv.URL}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t, bin)
			api := llmtest.NewAnthropicServer(t, turns()...)
			e.env = append(e.env, "ANTHROPIC_API_KEY=first-party-key", "ANTHROPIC_MODEL=haiku")
			e.env = append(e.env, tt.env(t, api)...)
			e.run("-p", "clean up").wantCode(0)
			if !strings.Contains(e.stdout, "Not allowed to delete build.") {
				t.Errorf("stdout %q\nstderr %s", e.stdout, e.stderr)
			}
			reqs := api.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests reached the API, want 2\nstderr %s", len(reqs), e.stderr)
			}
			if !strings.Contains(string(reqs[0].Body), tt.wantModel) {
				t.Errorf("the platform's model id did not reach the API: %.300s", reqs[0].Body)
			}
			for _, r := range reqs {
				if strings.Contains(r.Header.Get("Authorization"), "first-party-key") || r.Header.Get("X-Api-Key") != "" {
					t.Errorf("the first-party key travelled to %s", tt.name)
				}
			}
			if rs := toolResults(t, reqs[1]); len(rs) != 1 || !rs[0].IsError {
				t.Errorf("rm -rf build was not denied: %+v", rs)
			}
		})
	}
}
