package classifier

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/reinsdev/reins/built"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// DefaultTimeout bounds one judgement; past it the call is not judged.
const DefaultTimeout = 30 * time.Second

// Classifier judges calls with a model. Its zero value is not usable: Provider and Model are
// required. It is safe for concurrent use.
type Classifier struct {
	Provider llm.Provider
	Model    string
	// Timeout bounds one request; zero is DefaultTimeout.
	Timeout time.Duration
	// CacheSize bounds the verdicts kept; zero is 512.
	CacheSize int

	once  sync.Once
	cache *cache
}

// Classify implements [permission.Classifier]. The conversation is the one ctx carries
// ([llm.WithTranscript]); the request's usage goes to ctx's [llm.UsageReporter]. Its errors
// are [*Failure]s, or ctx's own when ctx ended.
func (c *Classifier) Classify(ctx context.Context, req permission.ClassifyRequest) (permission.Verdict, error) {
	c.once.Do(func() {
		built.Mark(built.Classifier)
		c.cache = newCache(c.CacheSize)
	})
	if c.Provider == nil || c.Model == "" {
		return permission.Verdict{}, &Failure{Kind: KindError, Detail: "no model is configured for the classifier"}
	}
	t, _ := llm.TranscriptOf(ctx)
	doc, err := buildDocument(req, t)
	if err != nil {
		return permission.Verdict{}, err
	}
	key := cacheKey(c.Model, doc)
	if v, ok := c.cache.get(key); ok {
		permission.Note(ctx, permission.Step{Name: "auto: classifier cache", Outcome: verdictWord(v), Detail: "the same action in the same context was judged before"})
		return v, nil
	}
	v, err := c.ask(ctx, doc)
	if err != nil {
		return permission.Verdict{}, err
	}
	c.cache.put(key, v)
	return v, nil
}

// ask sends one request and reads its verdict.
func (c *Classifier) ask(ctx context.Context, doc []byte) (permission.Verdict, error) {
	timeout := cmp.Or(c.Timeout, DefaultTimeout)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	resp, err := c.Provider.Stream(rctx, newRequest(c.Model, doc), nil)
	switch {
	case ctx.Err() != nil:
		return permission.Verdict{}, ctx.Err()
	case errors.Is(rctx.Err(), context.DeadlineExceeded):
		return permission.Verdict{}, &Failure{Kind: KindTimeout, Detail: fmt.Sprintf("%s gave no answer within %s", c.Model, timeout)}
	case err != nil:
		return permission.Verdict{}, &Failure{Kind: KindError, Detail: err.Error()}
	}
	llm.ReportUsage(ctx, cmp.Or(resp.Model, c.Model), resp.Usage)
	permission.Note(ctx, permission.Step{Name: "auto: classifier request", Outcome: "answered",
		Detail: fmt.Sprintf("model %s, %d input and %d output tokens, %s", cmp.Or(resp.Model, c.Model), resp.Usage.InputTokens, resp.Usage.OutputTokens, time.Since(start).Round(time.Millisecond))})
	return parseVerdict(resp)
}

func cacheKey(model string, doc []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write(doc)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func verdictWord(v permission.Verdict) string {
	if v.Block {
		return "deny"
	}
	return "allow"
}
