package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
)

// overloadedProvider fails with 529 for one model and answers for any other.
type overloadedProvider struct{ models []string }

func (p *overloadedProvider) Name() string { return "fake" }

func (p *overloadedProvider) Stream(_ context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	p.models = append(p.models, req.Model)
	if req.Model == "big" {
		return nil, &llm.APIError{StatusCode: 529, Type: "overloaded_error", Message: "Overloaded"}
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("ok")}}}, nil
}

func TestFallbackModel(t *testing.T) {
	p := &overloadedProvider{}
	var log strings.Builder
	fb := &fallbackProvider{Provider: p, fallback: "small", note: func(m string) { log.WriteString(m + "\n") }}
	if _, err := fb.Stream(context.Background(), &llm.Request{Model: "big"}, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.models, ",") != "big,small" || !strings.Contains(log.String(), "switching to the fallback model small") {
		t.Errorf("models %v, log %q", p.models, log.String())
	}
	// Other errors are not a reason to switch.
	bad := &fallbackProvider{Provider: llmFunc(func() error { return errors.New("invalid request") }), fallback: "small", note: func(m string) { log.WriteString(m + "\n") }}
	if _, err := bad.Stream(context.Background(), &llm.Request{Model: "big"}, nil); err == nil {
		t.Error("an invalid request was retried into success")
	}
}

type llmFunc func() error

func (f llmFunc) Name() string { return "func" }
func (f llmFunc) Stream(context.Context, *llm.Request, func(llm.Event)) (*llm.Response, error) {
	return nil, f()
}
