package bedrock_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/bedrock"
	"github.com/reinsdev/reins/llm/bedrock/bedrocktest"
	"github.com/reinsdev/reins/llm/llmtest"
)

var keys = bedrocktest.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret", Region: "eu-west-1", BearerToken: "bedrock-api-key"}

func request(model string) *llm.Request {
	return &llm.Request{Model: model, MaxTokens: 100, Messages: []llm.Message{llm.UserText("hello")}}
}

func TestStream(t *testing.T) {
	tests := []struct {
		name    string
		opts    bedrock.Options
		turn    llmtest.Turn
		want    string
		wantErr string
	}{
		{name: "signed with SigV4", opts: bedrock.Options{Credentials: credentials.NewStaticCredentialsProvider(keys.AccessKeyID, keys.SecretAccessKey, "")},
			turn: llmtest.Say("Hello ", "from Bedrock."), want: "Hello from Bedrock."},
		{name: "a Bedrock API key", opts: bedrock.Options{BearerToken: keys.BearerToken}, turn: llmtest.Say("ok"), want: "ok"},
		{name: "a wrong secret is refused by the endpoint", opts: bedrock.Options{Credentials: credentials.NewStaticCredentialsProvider(keys.AccessKeyID, "wrong", "")},
			turn: llmtest.Say("never"), wantErr: "signature we calculated does not match"},
		{name: "an exception inside the stream is the API's error", opts: bedrock.Options{BearerToken: keys.BearerToken},
			turn: llmtest.Turn{Text: []string{"partial"}, Error: &llmtest.Failure{InStream: true, Type: "overloaded_error", Message: "slow down"}}, wantErr: "throttlingException: slow down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := llmtest.NewAnthropicServer(t, tt.turn)
			srv := bedrocktest.NewServer(t, api, keys)
			tt.opts.Region, tt.opts.BaseURL = keys.Region, srv.URL
			platform, err := bedrock.New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			p := anthropic.New(anthropic.Options{Platform: platform, MaxRetries: -1, APIKey: "first-party-key"})
			model := bedrock.ModelID("claude-sonnet-4-5", keys.Region)
			resp, err := p.Stream(context.Background(), request(model), func(llm.Event) {})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Message.Text(); got != tt.want {
				t.Errorf("text %q, want %q", got, tt.want)
			}
			reqs := api.Requests()
			if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"model":"eu.anthropic.claude-sonnet-4-5-20250929-v1:0"`) {
				t.Errorf("the model did not reach the API from the URL: %s", reqs[0].Body)
			}
			if h := reqs[0].Header.Get("Authorization"); strings.Contains(h, "first-party-key") || reqs[0].Header.Get("X-Api-Key") != "" {
				t.Errorf("a first-party credential travelled to Bedrock: %q", h)
			}
		})
	}
}

func TestInStreamThrottlingIsRetried(t *testing.T) {
	api := llmtest.NewAnthropicServer(t, llmtest.Overloaded(), llmtest.Say("after the retry"))
	srv := bedrocktest.NewServer(t, api, keys)
	platform, err := bedrock.New(bedrock.Options{Region: keys.Region, BaseURL: srv.URL, BearerToken: keys.BearerToken})
	if err != nil {
		t.Fatal(err)
	}
	var sleeps llmtest.Sleeps
	p := anthropic.New(anthropic.Options{Platform: platform, Retry: llm.RetryPolicy{Sleep: sleeps.Sleep}})
	resp, err := p.Stream(context.Background(), request("m"), func(llm.Event) {})
	if err != nil || resp.Message.Text() != "after the retry" {
		t.Fatalf("resp %v, err %v", resp, err)
	}
}

func TestNew(t *testing.T) {
	static := credentials.NewStaticCredentialsProvider("a", "b", "")
	tests := []struct {
		name    string
		opts    bedrock.Options
		wantErr string
	}{
		{name: "no region", opts: bedrock.Options{Credentials: static}, wantErr: "no region: set AWS_REGION"},
		{name: "no credentials", opts: bedrock.Options{Region: "us-east-1"}, wantErr: "no AWS credentials"},
		{name: "a base URL that is not http", opts: bedrock.Options{Region: "us-east-1", Credentials: static, BaseURL: "ftp://x"}, wantErr: "is not an http(s) URL"},
		{name: "skip auth needs nothing", opts: bedrock.Options{Region: "us-east-1", SkipAuth: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bedrock.New(tt.opts)
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestFromEnvReadsKeysFromTheEnvironment(t *testing.T) {
	env := map[string]string{"AWS_REGION": "us-west-2", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "s"}
	for k, v := range env {
		t.Setenv(k, v)
	}
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	p, err := bedrock.FromEnv(context.Background(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if p.Region() != "us-west-2" || p.Credential() != "AWS credentials (SigV4)" {
		t.Errorf("region %q, credential %q", p.Region(), p.Credential())
	}
}

func TestModelID(t *testing.T) {
	for _, tt := range []struct{ model, region, want string }{
		{"claude-sonnet-4-5", "us-east-1", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"},
		{"claude-haiku-4-5", "eu-central-1", "eu.anthropic.claude-haiku-4-5-20251001-v1:0"},
		{"claude-opus-4-5", "ap-northeast-1", "apac.anthropic.claude-opus-4-5-20251101-v1:0"},
		{"claude-opus-4-5", "ca-central-1", "anthropic.claude-opus-4-5-20251101-v1:0"},
		{"arn:aws:bedrock:us-east-1:1:application-inference-profile/x", "us-east-1", "arn:aws:bedrock:us-east-1:1:application-inference-profile/x"},
	} {
		if got := bedrock.ModelID(tt.model, tt.region); got != tt.want {
			t.Errorf("ModelID(%q, %q) = %q, want %q", tt.model, tt.region, got, tt.want)
		}
	}
}

func TestRequestURL(t *testing.T) {
	p, err := bedrock.New(bedrock.Options{Region: "us-east-1", SkipAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	arn := "arn:aws:bedrock:us-east-1:123:application-inference-profile/abc"
	req, err := p.Request(context.Background(), []byte(`{"model":"`+arn+`","stream":true,"max_tokens":1}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The ARN's "/" stays inside one path segment.
	want := "https://bedrock-runtime.us-east-1.amazonaws.com/model/arn:aws:bedrock:us-east-1:123:application-inference-profile%2Fabc/invoke-with-response-stream"
	if req.URL.String() != want {
		t.Errorf("URL %s\nwant %s", req.URL, want)
	}
}
