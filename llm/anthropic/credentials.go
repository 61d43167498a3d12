package anthropic

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Credential is what one request authenticates with.
type Credential struct {
	// Bearer is sent as Authorization: Bearer, where the API (and the SDK) takes an API key
	// and a token alike.
	Bearer string
	// XAPIKey, if set, is sent as X-Api-Key too: the header gateways in front of the API may
	// read, which Claude Code's apiKeyHelper value is sent in beside Authorization.
	XAPIKey string
}

// empty reports whether c authenticates with nothing.
func (c Credential) empty() bool { return c.Bearer == "" && c.XAPIKey == "" }

// CredentialSource gives the credential of each request: a key that changes during a session
// (a helper program's, rotated by a company's secrets manager). The adapter asks it before
// every request, with refresh false, so it may answer from a cache. When the API answers 401,
// the adapter asks once more with refresh true and sends the request once more with the
// answer; a second 401 is the request's error. An error from the source fails the request: a
// request is never sent without the credential it should carry.
type CredentialSource interface {
	Credential(ctx context.Context, refresh bool) (Credential, error)
}

// CredentialError is a CredentialSource's failure as the adapter returns it. It is no
// [*llm.APIError] and wraps nothing a retry policy would retry: a helper that fails fails the
// same way at once.
type CredentialError struct{ Msg string }

func (e *CredentialError) Error() string { return "anthropic: credentials: " + e.Msg }

// ParseCustomHeaders reads ANTHROPIC_CUSTOM_HEADERS: one "Name: Value" a line, as Claude Code
// takes it; blank lines are skipped and a "\r" before a newline is dropped. A line without a
// colon, a name that is no HTTP token, or a value with a control character is an error naming
// the line by number, never quoting it: a header may hold a secret, and a line without a
// colon may be one pasted whole.
func ParseCustomHeaders(s string) (http.Header, error) {
	h := http.Header{}
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case !ok:
			return nil, fmt.Errorf("ANTHROPIC_CUSTOM_HEADERS line %d: want \"Name: Value\", found no colon", i+1)
		case !validHeaderName(name):
			return nil, fmt.Errorf("ANTHROPIC_CUSTOM_HEADERS line %d: the header name is empty or holds a character a name may not (a space, a quote, a bracket…)", i+1)
		case !validHeaderValue(value):
			return nil, fmt.Errorf("ANTHROPIC_CUSTOM_HEADERS line %d: the value holds a control character", i+1)
		}
		h.Add(name, value)
	}
	return h, nil
}

// credential asks the source for the credential of a request; an empty one is an error, never
// a request sent without a key.
func (p *Provider) credential(ctx context.Context, refresh bool) (Credential, error) {
	c, err := p.creds.Credential(ctx, refresh)
	switch {
	case err != nil && ctx.Err() != nil:
		return Credential{}, ctx.Err()
	case err != nil:
		return Credential{}, &CredentialError{Msg: err.Error()}
	case c.empty():
		return Credential{}, &CredentialError{Msg: "the credential source gave no key"}
	}
	return c, nil
}

// setCredential puts c on a request's headers, replacing whatever a custom header set there:
// the credential in use is the one the caller chose.
func setCredential(h http.Header, c Credential) {
	if c.Bearer != "" {
		h["Authorization"] = []string{"Bearer " + c.Bearer}
	}
	if c.XAPIKey != "" {
		h["X-Api-Key"] = []string{c.XAPIKey}
	}
}

// drain reads a little of a body being thrown away so the connection can be reused, and
// closes it.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxErrorBody))
	_ = body.Close()
}

// validHeaderName reports whether s is an HTTP field name: a token (RFC 9110, 5.1).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		ok := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s may be sent as a field value: no control character but
// a tab (a newline would start another header).
func validHeaderValue(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
