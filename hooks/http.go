package hooks

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// AllowList is one settings file's list of allowed values (allowedHttpHookUrls,
// httpHookAllowedEnvVars) with where it was written.
type AllowList struct {
	Values []string
	Origin string
}

// HTTPPolicy is what the settings allow http hooks: every list of every file that set one
// applies, so a value must be on each (a project file's list can narrow the user's or the
// policy's, never widen it). No list means no restriction; an empty list allows nothing.
type HTTPPolicy struct {
	// URLs are allowedHttpHookUrls lists of URL patterns, where * matches any run of
	// characters.
	URLs []AllowList
	// EnvVars are httpHookAllowedEnvVars lists of variable names a header may use.
	EnvVars []AllowList
}

// URLAllowed says why url may not be called, or "".
func (p HTTPPolicy) URLAllowed(raw string) string {
	for _, l := range p.URLs {
		if !slices.ContainsFunc(l.Values, func(pat string) bool { return globMatch(pat, raw) }) {
			return fmt.Sprintf("%s is not allowed by allowedHttpHookUrls (%s)", raw, l.Origin)
		}
	}
	return ""
}

// envAllowed reports whether every httpHookAllowedEnvVars list names v.
func (p HTTPPolicy) envAllowed(v string) bool {
	for _, l := range p.EnvVars {
		if !slices.Contains(l.Values, v) {
			return false
		}
	}
	return true
}

// globMatch matches s against a pattern whose * stands for any run of characters (none
// included) and every other character for itself.
func globMatch(pat, s string) bool {
	parts := strings.Split(pat, "*")
	if len(parts) == 1 {
		return pat == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, last)
}

// Header is one header of an http hook, in the order the settings wrote them.
type Header struct {
	Name, Value string
}

// HTTP is an http hook: the event's JSON input POSTed to URL, the response body read as a
// command hook's standard output. A response other than 2xx, a redirect (never followed: its
// target was not checked against the allow-list), a body over the runner's output cap, a URL
// the settings do not allow and a connection that fails are errors, which block on the events
// that decide (see [FailClosed]).
type HTTP struct {
	URL     string
	Headers []Header
	// AllowedEnvVars are the variables a header value may use as $VAR or ${VAR}; a variable
	// not listed here and in every httpHookAllowedEnvVars list becomes empty, as in Claude
	// Code.
	AllowedEnvVars []string
	Policy         HTTPPolicy
	// Getenv reads the variables; nil reads none.
	Getenv func(string) string
	// Client sends the request; nil is a client that follows no redirect.
	Client *http.Client
	// MaxBody caps the response body; zero is DefaultMaxOutput.
	MaxBody int
}

// FailsClosed implements FailClosed.
func (h *HTTP) FailsClosed() bool { return true }

// Type implements Typed.
func (h *HTTP) Type() string { return "http" }

// Describe names the hook in messages.
func (h *HTTP) Describe() string { return "http " + h.URL }

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Handle implements Handler.
func (h *HTTP) Handle(ctx context.Context, input []byte) (Raw, error) {
	target, err := checkHookURL(h.URL)
	if err != nil {
		return Raw{}, err
	}
	if why := h.Policy.URLAllowed(target); why != "" {
		return Raw{}, errors.New(why)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(input))
	if err != nil {
		return Raw{}, fmt.Errorf("http hook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, hd := range h.Headers {
		v := h.expand(hd.Value)
		if strings.ContainsAny(v, "\r\n\x00") {
			return Raw{}, fmt.Errorf("http hook: header %s has a line break or NUL after its variables were expanded", hd.Name)
		}
		req.Header.Set(hd.Name, v)
	}
	client := cmp.Or(h.Client, noRedirects)
	resp, err := client.Do(req)
	if err != nil {
		return Raw{}, fmt.Errorf("http hook: %w", err)
	}
	defer resp.Body.Close()
	limit := cmp.Or(h.MaxBody, DefaultMaxOutput)
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return Raw{}, fmt.Errorf("http hook: reading the response: %w", err)
	}
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return Raw{}, fmt.Errorf("http hook: %s answered %s", target, resp.Status)
	case len(body) > limit:
		return Raw{}, fmt.Errorf("http hook: the response is larger than %d bytes", limit)
	}
	return Raw{Stdout: string(body)}, nil
}

// checkHookURL parses an http hook's URL: http or https, a host, no user name or password (a
// URL that reads as one host and goes to another).
func checkHookURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", fmt.Errorf("http hook: invalid URL %q: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("http hook: URL %q must be http or https", raw)
	case u.Host == "":
		return "", fmt.Errorf("http hook: URL %q has no host", raw)
	case u.User != nil:
		return "", fmt.Errorf("http hook: URL %q must not carry a user name or password", raw)
	}
	return u.String(), nil
}

// expand replaces $VAR and ${VAR} in a header value with the variables the hook and the
// settings allow; every other variable becomes empty.
func (h *HTTP) expand(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			b.WriteByte(v[i])
			continue
		}
		name, n := envRef(v[i+1:])
		if n == 0 {
			b.WriteByte('$')
			continue
		}
		i += n
		if h.Getenv != nil && slices.Contains(h.AllowedEnvVars, name) && h.Policy.envAllowed(name) {
			b.WriteString(h.Getenv(name))
		}
	}
	return b.String()
}

// envRef reads the variable name after a $: NAME or {NAME}. n is how many bytes it took, zero
// when there is no name.
func envRef(s string) (name string, n int) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 2 || !isEnvName(s[1:end]) {
			return "", 0
		}
		return s[1:end], end + 1
	}
	for n < len(s) && isEnvByte(s[n], n == 0) {
		n++
	}
	return s[:n], n
}

func isEnvName(s string) bool {
	for i := range len(s) {
		if !isEnvByte(s[i], i == 0) {
			return false
		}
	}
	return s != ""
}

func isEnvByte(c byte, first bool) bool {
	return c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || !first && '0' <= c && c <= '9'
}
