// Package web implements the WebFetch tool: fetch a URL, turn the page into Markdown, and
// answer the model's prompt about it with a small model — or, with none configured, return
// the Markdown itself.
//
// # Fetching
//
// URLs are validated first (absolute http or https, at most 2000 characters, no user
// credentials, a host name with a dot, an IP address, or localhost). http is upgraded to
// https, except for localhost and loopback addresses: tests and local development servers
// speak plain http (httptest.NewServer, for example). Redirects to the same host (a "www."
// prefix aside, same scheme and port) are followed, at most 10; a redirect to another host is
// not followed but reported to the model, which may fetch the new URL in a call of its own —
// and go through the permission check for that host. Bodies larger than 10 MB are refused.
// HTML is converted to Markdown with html-to-markdown; other text is used as is.
//
// Pages are cached for 15 minutes per URL, in a cache bounded by total size (50 MB, least
// recently used first out), owned by the tool value: every tool built by [New] has its own.
//
// # Permissions
//
// CheckPermissions looks up WebFetch(domain:<host>) content rules, deny then ask then allow.
// The URL is read as a browser reads it and its host, like each rule's, is reduced to one
// canonical form (package hostcanon: case, trailing dot, percent-encoding, UTS-46 letters and
// dots, every IPv4 spelling, IPv4-mapped IPv6); the URL fetched is that canonical URL. A rule
// for *.example.com covers every subdomain of example.com but not example.com itself. With
// no matching rule the check passes the decision on (so the engine asks), suggesting a
// WebFetch(domain:<host>) allow rule for the local settings.
//
// The fetch resolves a host once, refuses it when any address it resolves to is named by a
// WebFetch deny or ask rule, and dials only the addresses it checked (dial.go): no DNS answer
// given after the check reaches the connection. It connects directly, never through the
// environment's proxy, whose address would be the one dialled.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
	"github.com/reinsdev/reins/tools/web/hostcanon"
)

// Name is the WebFetch tool's name.
const Name = "WebFetch"

// Limits of Claude Code's WebFetch.
const (
	MaxURLLength     = 2000
	MaxRedirects     = 10
	MaxBodyBytes     = 10 << 20
	MaxMarkdownChars = 100_000
	CacheTTL         = 15 * time.Minute
	CacheBytes       = 50 << 20
)

// Summarizer applies the model's prompt to a page, typically with a small, fast model.
type Summarizer interface {
	Summarize(ctx context.Context, prompt, markdown string) (string, error)
}

// Options configure WebFetch. The zero value fetches with a 60-second timeout, caches for 15
// minutes in at most 50 MB, and returns Markdown (no summariser).
type Options struct {
	// Client fetches pages; its redirect policy is replaced (WebFetch follows redirects
	// itself). nil means a client with a 60-second timeout.
	Client     *http.Client
	Summarizer Summarizer
	// Now is the cache's clock; nil means time.Now.
	Now       func() time.Time
	UserAgent string
	// CacheBytes bounds the cache; 0 means 50 MB, negative disables caching.
	CacheBytes int
}

// Input is WebFetch's input.
type Input struct {
	URL    string `json:"url" jsonschema:"The URL to fetch content from"`
	Prompt string `json:"prompt" jsonschema:"What to extract from or answer about the fetched content"`
}

// Output is WebFetch's structured result.
type Output struct {
	URL        string `json:"url"`
	Code       int    `json:"code"`
	CodeText   string `json:"codeText"`
	Bytes      int    `json:"bytes"`
	Result     string `json:"result"`
	DurationMs int64  `json:"durationMs"`
	Cached     bool   `json:"cached,omitempty"`
}

const prompt = `Fetches content from a URL and processes it with an AI model.
- Takes a URL and a prompt as input
- Fetches the URL content and converts HTML to Markdown
- Processes the content with the prompt using a small, fast model
- Returns the model's response about the content
- Use this tool when you need to retrieve and analyse web content

Usage notes:
- If an MCP-provided web fetch tool is available, prefer it: it may have fewer restrictions.
- The URL must be a fully-formed valid URL. HTTP URLs are upgraded to HTTPS.
- The prompt should describe what information you want from the page.
- This tool is read-only and does not modify any files.
- Results may be summarised if the content is very large.
- Responses are cached for 15 minutes, so repeated requests for the same URL are fast.
- When a URL redirects to a different host, the tool tells you the redirect URL instead of following it. Make a new WebFetch request with that URL to fetch the content.
- For GitHub URLs, prefer the gh CLI through Bash (gh pr view, gh issue view, gh api).`

type fetcher struct {
	client     *http.Client
	summarizer Summarizer
	userAgent  string
	cache      *cache
}

// New returns the WebFetch tool.
func New(opts Options) tool.Tool {
	client := &http.Client{Timeout: 60 * time.Second}
	if opts.Client != nil {
		c := *opts.Client
		client = &c
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	client.Transport = guardTransport(client.Transport, net.DefaultResolver)
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	size := opts.CacheBytes
	if size == 0 {
		size = CacheBytes
	}
	f := &fetcher{client: client, summarizer: opts.Summarizer, userAgent: opts.UserAgent, cache: newCache(size, CacheTTL, now)}
	if f.userAgent == "" {
		f.userAgent = "Reins-WebFetch/1.0 (+https://github.com/reinsdev/reins)"
	}
	return tool.Build(tool.Def[Input]{
		Name:        Name,
		SearchHint:  "fetch and extract content from a URL",
		Description: "Fetch a web page and answer a prompt about it",
		Prompt:      prompt,
		// No MaxResultChars: Claude Code's 100,000 is above the 50,000 ceiling, the default.
		SchemaJSON: schemax.Static(Name, func() *jsonschema.Schema {
			return schemax.For[Input](func(s *jsonschema.Schema) { s.Properties["url"].Format = "uri" })
		}),
		Validate:         validateURL,
		CheckPermissions: CheckPermissions,
		ReadOnly:         func(Input) bool { return true },
		ConcurrencySafe:  func(Input) bool { return true },
		OpenWorld:        func(Input) bool { return true },
		Egress:           egress,
		Defer:            true,
		UserFacingName:   func(Input) string { return "Fetch" },
		Call:             f.call,
	})
}

// validateURL is the URL check of the tool's input.
func validateURL(_ context.Context, in Input, _ *tool.Env) *tool.Failure {
	if _, err := ParseURL(in.URL); err != nil {
		return tool.Failf("Error: Invalid URL %q. The URL provided could not be parsed.", in.URL)
	}
	return nil
}

// invalidURL is the error of ParseURL for every malformed URL; the model is told less (see
// validateURL), as Claude Code does.
func invalidURL(u string) error {
	return fmt.Errorf("invalid URL %q: not an absolute http(s) URL with a host name and without credentials", u)
}

// ParseURL validates a URL for fetching and returns it with http upgraded to https (loopback
// hosts excepted).
func ParseURL(raw string) (*url.URL, error) {
	if len(raw) > MaxURLLength {
		return nil, invalidURL(raw)
	}
	// Read as a browser reads it, with the host in its one canonical form: the host the
	// rules are matched against is the host fetched (hostcanon).
	u, err := hostcanon.ParseURL(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" {
		return nil, invalidURL(raw)
	}
	host := u.Hostname()
	if host == "" || (!strings.Contains(host, ".") && !isLoopback(host) && net.ParseIP(host) == nil) {
		return nil, invalidURL(raw)
	}
	if u.Scheme == "http" && !isLoopback(host) {
		u.Scheme = "https"
	}
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// normalizeHost is the canonical form of a host or a rule's host pattern (hostcanon.Pattern):
// every spelling of a host or address compares equal.
func normalizeHost(h string) string {
	return hostcanon.Pattern(h)
}

// domainMatches reports whether the content of a WebFetch rule ("domain:example.com",
// "domain:*.example.com") covers host.
func domainMatches(content, host string) bool {
	pat, ok := strings.CutPrefix(content, "domain:")
	if !ok {
		return false
	}
	pat = normalizeHost(pat)
	if suffix, ok := strings.CutPrefix(pat, "*."); ok {
		return strings.HasSuffix(host, "."+suffix) && len(host) > len(suffix)+1
	}
	return pat != "" && host == pat
}

// egress is where a fetch sends: the URL's host (its path and query can carry anything).
func egress(_ context.Context, _ *permission.Context, in Input) permission.Egress {
	u, err := ParseURL(in.URL)
	if err != nil {
		return permission.Egress{Unseen: "the URL cannot be parsed"}
	}
	return permission.Egress{Hosts: []string{normalizeHost(u.Hostname())}}
}

// CheckPermissions is WebFetch's permission check: deny, ask, then allow rules for the host.
func CheckPermissions(ctx context.Context, pc *permission.Context, in Input) permission.Decision {
	u, err := ParseURL(in.URL)
	if err != nil {
		return permission.Decision{Behavior: permission.Passthrough, Message: permission.RequestMessage(Name)}
	}
	host := normalizeHost(u.Hostname())
	content := "domain:" + host
	for _, b := range []permission.Behavior{permission.Deny, permission.Ask, permission.Allow} {
		for _, r := range pc.ContentRules(b, Name) {
			if !domainMatches(r.Value.Content, host) {
				continue
			}
			permission.NoteRule(ctx, "webfetch: domain rule", r, b.String())
			d := permission.Decision{Behavior: b, Reason: &permission.Reason{Type: permission.ReasonRule, Rule: r}}
			switch b {
			case permission.Deny:
				d.Message = fmt.Sprintf("%s denied access to %s.", Name, content)
			case permission.Ask:
				d.Message = permission.RequestMessage(Name)
			case permission.Allow:
				d.UpdatedInput = in
			}
			return d
		}
	}
	permission.Notef(ctx, "webfetch: domain rule", "no match", "%s", content)
	return permission.Decision{
		Behavior: permission.Passthrough,
		Message:  permission.RequestMessage(Name),
		Suggestions: []permission.Update{{Type: permission.AddRules, Destination: permission.SourceLocal, Behavior: permission.Allow,
			Rules: []permission.RuleValue{{Tool: Name, Content: content}}}},
	}
}

// page is a fetched page, as cached.
type page struct {
	markdown string
	code     int
	codeText string
	bytes    int
}

func (p *page) size() int { return len(p.markdown) + 64 }

// errTooLarge is returned for bodies over MaxBodyBytes.
var errTooLarge = fmt.Errorf("the response is larger than the %d MB limit", MaxBodyBytes>>20)

func (f *fetcher) call(ctx context.Context, in Input, env *tool.Env) (tool.Result, error) {
	start := time.Now()
	u, err := ParseURL(in.URL)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	key := u.String()
	p, cached := f.cache.get(key)
	if !cached {
		if env != nil && env.Permissions != nil {
			ctx = withAddrCheck(ctx, rulesAddrCheck(env.Permissions()))
		}
		env.Report(tool.Progress{Message: "Fetching " + key})
		var redirect *redirectError
		p, err = f.fetch(ctx, u)
		switch {
		case errors.As(err, &redirect):
			text := redirect.message(in.Prompt)
			return tool.Result{Content: []tool.Content{tool.Text(text)},
				Output: Output{URL: key, Code: redirect.code, CodeText: http.StatusText(redirect.code), Result: text, DurationMs: time.Since(start).Milliseconds()}}, nil
		case ctx.Err() != nil:
			return tool.Result{}, ctx.Err()
		case err != nil:
			return tool.ErrorResult(fmt.Sprintf("Error fetching %s: %v", key, err)), nil
		}
		f.cache.put(key, p)
	}
	text, err := f.answer(ctx, in.Prompt, p.markdown)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.ErrorResult(fmt.Sprintf("Error processing the content of %s: %v", key, err)), nil
	}
	return tool.Result{Content: []tool.Content{tool.Text(text)}, Output: Output{
		URL: key, Code: p.code, CodeText: p.codeText, Bytes: p.bytes, Result: text,
		DurationMs: time.Since(start).Milliseconds(), Cached: cached,
	}}, nil
}

// answer applies the prompt with the summariser, or returns the Markdown (capped) without one.
func (f *fetcher) answer(ctx context.Context, prompt, markdown string) (string, error) {
	capped, n := capChars(markdown, MaxMarkdownChars)
	if f.summarizer != nil {
		return f.summarizer.Summarize(ctx, prompt, capped)
	}
	if capped == markdown {
		return markdown, nil
	}
	return capped + fmt.Sprintf("\n\n[Content truncated: showing the first %d of %d characters.]", MaxMarkdownChars, n), nil
}

// capChars returns the first max characters of s and the character count of s.
func capChars(s string, max int) (string, int) {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, n
	}
	i, k := 0, 0
	for k < max {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		k++
	}
	return s[:i], n
}

// redirectError is a redirect WebFetch does not follow.
type redirectError struct {
	from, to string
	code     int
}

func (e *redirectError) Error() string { return fmt.Sprintf("redirect from %s to %s", e.from, e.to) }

func (e *redirectError) message(prompt string) string {
	return fmt.Sprintf(`REDIRECT DETECTED: The URL redirects to a different host.

Original URL: %s
Redirect URL: %s
Status: %d %s

To complete your request, fetch the content from the redirected URL: use WebFetch again with these parameters:
- url: %q
- prompt: %q`, e.from, e.to, e.code, http.StatusText(e.code), e.to, prompt)
}

// permittedRedirect reports whether a redirect stays on the same site: same scheme and port,
// no credentials, and the same host once a "www." prefix is set aside.
func permittedRedirect(from, to *url.URL) bool {
	if to.Scheme != from.Scheme || to.Port() != from.Port() || to.User != nil {
		return false
	}
	strip := func(h string) string { return strings.TrimPrefix(normalizeHost(h), "www.") }
	return strip(from.Hostname()) == strip(to.Hostname())
}

func (f *fetcher) fetch(ctx context.Context, u *url.URL) (*page, error) {
	cur := u
	for redirects := 0; ; redirects++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cur.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", f.userAgent)
		req.Header.Set("Accept", "text/markdown, text/html, */*")
		resp, err := f.client.Do(req)
		if err != nil {
			return nil, err
		}
		if isRedirect(resp.StatusCode) {
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			if loc == "" {
				return nil, fmt.Errorf("redirect (%s) without a Location header", resp.Status)
			}
			next, err := cur.Parse(loc)
			if err != nil {
				return nil, fmt.Errorf("redirect to an invalid URL %q", loc)
			}
			// The next URL is fetched in its canonical form, like the first: one the browser
			// reading refuses is not followed.
			canon, err := hostcanon.ParseURL(next.String())
			if err != nil {
				return nil, fmt.Errorf("redirect to an invalid URL %q", loc)
			}
			next = canon
			if !permittedRedirect(cur, next) {
				return nil, &redirectError{from: cur.String(), to: next.String(), code: resp.StatusCode}
			}
			if redirects == MaxRedirects {
				return nil, fmt.Errorf("too many redirects (exceeded %d)", MaxRedirects)
			}
			cur = next
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return nil, fmt.Errorf("request failed with status %s", resp.Status)
		}
		if resp.ContentLength > MaxBodyBytes {
			return nil, errTooLarge
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
		if err != nil {
			return nil, err
		}
		if len(body) > MaxBodyBytes {
			return nil, errTooLarge
		}
		md, err := toMarkdown(cur, resp.Header.Get("Content-Type"), body)
		if err != nil {
			return nil, err
		}
		return &page{markdown: md, code: resp.StatusCode, codeText: http.StatusText(resp.StatusCode), bytes: len(body)}, nil
	}
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// toMarkdown converts HTML to Markdown and passes other text through. Binary content is
// refused: the model could do nothing with it.
func toMarkdown(u *url.URL, contentType string, body []byte) (string, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "" {
		mt = http.DetectContentType(body)
		mt, _, _ = mime.ParseMediaType(mt)
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		md, err := htmltomarkdown.ConvertString(string(body), converter.WithDomain(u.Scheme+"://"+u.Host))
		if err != nil {
			return "", fmt.Errorf("converting HTML to Markdown: %w", err)
		}
		return md, nil
	case strings.HasPrefix(mt, "text/"), mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/xml", strings.HasSuffix(mt, "+xml"), mt == "application/javascript", mt == "application/x-ndjson":
		return strings.ToValidUTF8(string(body), "\uFFFD"), nil
	}
	return "", fmt.Errorf("the content type %s is not text; WebFetch reads web pages and text documents only", mt)
}
