package vertex_test

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/llm/vertex"
	"github.com/reinsdev/reins/llm/vertex/vertextest"
)

func stream(t *testing.T, p *vertex.Platform, model string) (*llm.Response, error) {
	t.Helper()
	a := anthropic.New(anthropic.Options{Platform: p, MaxRetries: -1, APIKey: "first-party-key"})
	return a.Stream(context.Background(), &llm.Request{Model: model, MaxTokens: 10, Messages: []llm.Message{llm.UserText("hi")}}, func(llm.Event) {})
}

// TestServiceAccount goes the whole way a service account goes: FromEnv finds the key file
// through GOOGLE_APPLICATION_CREDENTIALS, signs a JWT for the token endpoint, and sends the
// token it gets to the prediction endpoint.
func TestServiceAccount(t *testing.T) {
	api := llmtest.NewAnthropicServer(t, llmtest.Say("Hello ", "from Vertex."))
	srv := vertextest.NewServer(t, api, "acme-ai", "us-east5")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", srv.CredentialsFile)
	env := map[string]string{"CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_BASE_URL": srv.URL}
	p, err := vertex.FromEnv(context.Background(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	resp, err := stream(t, p, vertex.ModelID("claude-sonnet-4-5"))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.Text(); got != "Hello from Vertex." {
		t.Errorf("text %q", got)
	}
	req := api.Requests()[0]
	if !strings.Contains(string(req.Body), `"model":"claude-sonnet-4-5@20250929"`) {
		t.Errorf("the model did not reach the API from the URL: %s", req.Body)
	}
	if h := req.Header.Get("Authorization"); h != "Bearer ya29.vertextest" {
		t.Errorf("Authorization %q: want the token the service account got, never the first-party key", h)
	}
}

func TestRefused(t *testing.T) {
	api := llmtest.NewAnthropicServer(t, llmtest.Say("never"))
	srv := vertextest.NewServer(t, api, "acme-ai", "us-east5")
	tests := []struct {
		name    string
		opts    vertex.Options
		wantErr string
	}{
		{name: "a token the endpoint did not issue", opts: vertex.Options{Region: "us-east5", ProjectID: "acme-ai", Tokens: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "stolen"})},
			wantErr: "invalid authentication credentials"},
		{name: "another project", opts: vertex.Options{Region: "us-east5", ProjectID: "other", Tokens: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.vertextest"})},
			wantErr: "no such model or location"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.BaseURL = srv.URL
			p, err := vertex.New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := stream(t, p, "m"); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	if api.Served() != 0 {
		t.Errorf("a refused request reached the API")
	}
}

func TestNew(t *testing.T) {
	tok := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})
	for _, tt := range []struct {
		name    string
		opts    vertex.Options
		wantErr string
	}{
		{"no region", vertex.Options{ProjectID: "p", Tokens: tok}, "set CLOUD_ML_REGION"},
		{"no project", vertex.Options{Region: "global", Tokens: tok}, "set ANTHROPIC_VERTEX_PROJECT_ID"},
		{"no credentials", vertex.Options{Region: "global", ProjectID: "p"}, "no Google credentials"},
		{"a bad base URL", vertex.Options{Region: "global", ProjectID: "p", Tokens: tok, BaseURL: "::"}, "not an http(s) URL"},
		{"skip auth", vertex.Options{Region: "global", ProjectID: "p", SkipAuth: true}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := vertex.New(tt.opts)
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestRequestURL(t *testing.T) {
	for _, tt := range []struct{ region, want string }{
		{"global", "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict"},
		{"europe-west1", "https://europe-west1-aiplatform.googleapis.com/v1/projects/p/locations/europe-west1/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict"},
	} {
		p, err := vertex.New(vertex.Options{Region: tt.region, ProjectID: "p", SkipAuth: true})
		if err != nil {
			t.Fatal(err)
		}
		req, err := p.Request(context.Background(), []byte(`{"model":"claude-haiku-4-5@20251001","stream":true}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if req.URL.String() != tt.want {
			t.Errorf("%s: %s\nwant %s", tt.region, req.URL, tt.want)
		}
	}
}
