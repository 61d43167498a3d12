package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

func denyCtx(t testing.TB, domains ...string) *permission.Context {
	var rules []permission.Rule
	for _, d := range domains {
		rules = append(rules, permission.Rule{Value: permission.RuleValue{Tool: Name, Content: "domain:" + d}, Behavior: permission.Deny, Source: permission.SourceLocal})
	}
	rules = append(rules, permission.Rule{Value: permission.RuleValue{Tool: Name}, Behavior: permission.Allow, Source: permission.SourceLocal})
	pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// TestDomainRulesMatchEverySpelling: a domain rule covers every spelling of its host that a
// browser (and the fetch) reads as that host.
func TestDomainRulesMatchEverySpelling(t *testing.T) {
	pc := denyCtx(t, "127.0.0.1", "example.com", "*.internal.example", "0xA9.254.169.254")
	for _, tc := range []struct{ url, why string }{
		{"http://2130706433/", "decimal IPv4"},
		{"http://0177.0.0.1/", "octal IPv4"},
		{"http://0x7f.1/", "hex short IPv4"},
		{"http://127.1/", "short IPv4"},
		{"http://[::ffff:127.0.0.1]/", "IPv4-mapped IPv6"},
		{"http://127.0.0.1./", "trailing dot on an address"},
		{"https://EXAMPLE.com./", "case and trailing dot"},
		{"https://ｅｘａｍｐｌｅ.com/", "full-width letters"},
		{"https://example。com/", "ideographic full stop"},
		{"https://example．com/", "full-width full stop"},
		{"https://example｡com/", "half-width ideographic full stop"},
		{"https://ex%61mple.com/", "percent-encoded host"},
		{`https:\\example.com\x`, "backslashes"},
		{"https:example.com/", "missing slashes"},
		{"https://a.INTERNAL。example/", "wildcard rule, other dot"},
		{"http://169.254.169.254/latest/meta-data", "a rule written in hex matches the dotted address"},
		{"http://2852039166/", "the metadata address as a number"},
	} {
		d := CheckPermissions(context.Background(), pc, Input{URL: tc.url})
		if d.Behavior != permission.Deny {
			t.Errorf("%s (%s): %s, want deny", tc.url, tc.why, d.Behavior)
		}
	}
	for _, u := range []string{"https://example.org/", "http://127.0.0.2/", "https://notexample.com/"} {
		if d := CheckPermissions(context.Background(), pc, Input{URL: u}); d.Behavior == permission.Deny {
			t.Errorf("%s: denied; no rule names it", u)
		}
	}
	// What the rules saw is what is fetched: ParseURL gives the canonical host.
	if u, err := ParseURL("http://0x7f.1:8080/x"); err != nil || u.Host != "127.0.0.1:8080" {
		t.Errorf("ParseURL(http://0x7f.1:8080/x) = %v, %v; want host 127.0.0.1:8080", u, err)
	}
	if u, err := ParseURL("http://0x7f.1/"); err != nil || u.Scheme != "http" {
		t.Errorf("ParseURL(http://0x7f.1/) = %v, %v; loopback in any spelling keeps http", u, err)
	}
}

// TestPropertyDeniedHostEverySpelling: every spelling of a denied address or host is denied.
func TestPropertyDeniedHostEverySpelling(tt *testing.T) {
	pc := denyCtx(tt, "10.1.2.3", "secret.example.com")
	rapid.Check(tt, func(t *rapid.T) {
		var host string
		if rapid.Bool().Draw(t, "ip") {
			b := []uint64{10, 1, 2, 3}
			v := b[0]<<24 | b[1]<<16 | b[2]<<8 | b[3]
			num := func(n uint64) string {
				return rapid.SampledFrom([]string{fmt.Sprint(n), fmt.Sprintf("0%o", n), fmt.Sprintf("0x%x", n), fmt.Sprintf("0X%X", n)}).Draw(t, "num")
			}
			host = rapid.SampledFrom([]string{num(v), num(b[0]) + "." + num(v&0xffffff), num(b[0]) + "." + num(b[1]) + "." + num(v&0xffff),
				num(b[0]) + "." + num(b[1]) + "." + num(b[2]) + "." + num(b[3]), "[::ffff:10.1.2.3]", "[::ffff:a01:203]"}).Draw(t, "form")
		} else {
			labels := []string{"secret", "example", "com"}
			host = ""
			for i, l := range labels {
				if i > 0 {
					host += rapid.SampledFrom([]string{".", "。", "．", "｡", "%2e"}).Draw(t, "dot")
				}
				for _, r := range l {
					switch rapid.IntRange(0, 3).Draw(t, "letter") {
					case 1:
						r -= 'a' - 'A'
					case 2:
						r += 'ａ' - 'a'
					case 3:
						host += fmt.Sprintf("%%%02X", r)
						continue
					}
					host += string(r)
				}
			}
		}
		if !rapid.Bool().Draw(t, "trailing") && host[0] != '[' {
			host += "."
		}
		scheme := rapid.SampledFrom([]string{"http://", "https://", "HTTPS://", `https:\\`, "https:", "http:/"}).Draw(t, "scheme")
		u := scheme + host + "/x"
		if d := CheckPermissions(context.Background(), pc, Input{URL: u}); d.Behavior != permission.Deny {
			t.Fatalf("%s: %s, want deny", u, d.Behavior)
		}
	})
}

// TestRedirectComparesCanonicalHosts: a redirect to the same host spelt another way stays on
// the site and is fetched at its canonical URL; one the browser reading refuses is not
// followed.
func TestRedirectComparesCanonicalHosts(t *testing.T) {
	var srvURL string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/final":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "arrived at "+r.Host)
		case "/hex":
			http.Redirect(w, r, strings.Replace(srvURL, "127.0.0.1", "0x7f.1", 1)+"/final", http.StatusFound)
		case "/bad":
			w.Header().Set("Location", "http://1.2.3.256/")
			w.WriteHeader(http.StatusFound)
		}
	}))
	defer srv.Close()
	srvURL = srv.URL
	if !strings.HasPrefix(srvURL, "http://127.0.0.1:") {
		t.Skipf("the test server is not on 127.0.0.1 (%s)", srvURL)
	}
	wf := New(Options{CacheBytes: -1})
	if got := fetch(t, wf, Input{URL: srv.URL + "/hex", Prompt: "p"}); got.TextOf() != "arrived at "+strings.TrimPrefix(srvURL, "http://") {
		t.Errorf("redirect to 0x7f.1: %q; want it followed to 127.0.0.1", got.TextOf())
	}
	if got := fetch(t, wf, Input{URL: srv.URL + "/bad", Prompt: "p"}); !got.IsError || !strings.Contains(got.TextOf(), "invalid URL") {
		t.Errorf("redirect to 1.2.3.256 (not an address, not a name): %q; want an invalid-URL error", got.TextOf())
	}
}
