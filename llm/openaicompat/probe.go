package openaicompat

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"
)

// OllamaURL is where a local Ollama listens by default. Its
// OpenAI-compatible API is at OllamaURL + "/v1".
const OllamaURL = "http://localhost:11434"

// probeTimeout bounds ProbeOllama: it runs at start-up, where a missing
// server must not be noticed as a delay.
const probeTimeout = 800 * time.Millisecond

// ProbeOllama reports whether an Ollama server answers at baseURL (OllamaURL
// when empty; a trailing /v1 is ignored): GET /api/tags, or else
// /v1/models, must return 200 within a short timeout.
func ProbeOllama(ctx context.Context, baseURL string) bool {
	if baseURL == "" {
		baseURL = OllamaURL
	}
	baseURL = strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1")
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	for _, path := range []string{"/api/tags", "/v1/models"} {
		if probe(ctx, baseURL+path) {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
	}
	return false
}

func probe(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode == http.StatusOK
}
