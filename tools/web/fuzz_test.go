package web

import (
	"strings"
	"testing"
)

// FuzzParseURL checks that every accepted URL is absolute, credential-free, at most 2000
// characters, and plain http only on loopback hosts.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"https://example.com/a", "http://localhost:1/x", "http://127.0.0.1/", "ftp://x.y", "https://u@x.y", "http://[::1]/", "https://a.b/%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseURL(raw)
		if err != nil {
			return
		}
		if len(raw) > MaxURLLength || u.User != nil || u.Host == "" {
			t.Fatalf("accepted %q as %v", raw, u)
		}
		if u.Scheme == "http" && !isLoopback(u.Hostname()) {
			t.Fatalf("%q not upgraded: %v", raw, u)
		}
		if _, err := ParseURL(u.String()); err != nil && len(u.String()) <= MaxURLLength {
			t.Fatalf("%q parsed to %v, which does not parse again: %v", raw, u, err)
		}
	})
}

// FuzzDomainMatches checks the domain rule matcher against its definition.
func FuzzDomainMatches(f *testing.F) {
	f.Add("domain:example.com", "example.com")
	f.Add("domain:*.example.com", "a.example.com")
	f.Add("domain:*.", "x.")
	f.Fuzz(func(t *testing.T, content, host string) {
		host = normalizeHost(host)
		got := domainMatches(content, host)
		pat, ok := strings.CutPrefix(content, "domain:")
		if !ok {
			if got {
				t.Fatalf("%q matched without domain:", content)
			}
			return
		}
		pat = normalizeHost(pat)
		var want bool
		if s, ok := strings.CutPrefix(pat, "*."); ok {
			want = strings.HasSuffix(host, "."+s) && host != s && len(host) > len(s)+1
		} else {
			want = pat != "" && pat == host
		}
		if got != want {
			t.Fatalf("domainMatches(%q, %q) = %v", content, host, got)
		}
	})
}
