package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// rebinder answers each lookup with the next of its answers, as a DNS server that rebinds.
type rebinder struct {
	answers [][]netip.Addr
	calls   int
}

func (r *rebinder) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	a := r.answers[min(r.calls, len(r.answers)-1)]
	r.calls++
	return a, nil
}

// TestDialChecksTheAddressItDials: the host is resolved once; every address is checked in
// canonical form (a mapped IPv6 answer is its IPv4 address) and only checked addresses are
// dialled, so a second, different answer never reaches the dialer.
func TestDialChecksTheAddressItDials(t *testing.T) {
	res := &rebinder{answers: [][]netip.Addr{{netip.MustParseAddr("93.184.216.34")}, {netip.MustParseAddr("127.0.0.1")}}}
	var checked, dialled []string
	check := addrCheck(func(ip netip.Addr) error {
		checked = append(checked, ip.String())
		if ip.IsLoopback() {
			return errors.New("loopback refused")
		}
		return nil
	})
	dial := func(_ context.Context, _, address string) (net.Conn, error) {
		dialled = append(dialled, address)
		return nil, errors.New("no network in this test")
	}
	ctx := withAddrCheck(context.Background(), check)
	_, err := guardedDial(ctx, "tcp", "rebind.example:443", res, dial)
	if err == nil || !strings.Contains(err.Error(), "no network") {
		t.Fatalf("err = %v; want the dial's own error", err)
	}
	if res.calls != 1 || len(checked) != 1 || checked[0] != "93.184.216.34" || len(dialled) != 1 || dialled[0] != "93.184.216.34:443" {
		t.Fatalf("lookups %d, checked %v, dialled %v; want one lookup, and the checked address dialled", res.calls, checked, dialled)
	}

	mapped := &rebinder{answers: [][]netip.Addr{{netip.MustParseAddr("::ffff:127.0.0.1")}}}
	dialled = nil
	if _, err := guardedDial(ctx, "tcp", "mapped.example:80", mapped, dial); err == nil || !strings.Contains(err.Error(), "loopback refused") {
		t.Fatalf("a mapped loopback answer: err = %v, want refused", err)
	}
	if len(dialled) != 0 {
		t.Fatalf("dialled %v after a refusal", dialled)
	}
}

// TestFetchRefusesAHostResolvingToADeniedAddress: a domain rule naming an address applies to a
// host name that resolves to it, through the real resolver and a real server.
func TestFetchRefusesAHostResolvingToADeniedAddress(t *testing.T) {
	if ips, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", "localhost"); err != nil || len(ips) == 0 {
		t.Skip("localhost does not resolve on this machine")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	rule := func(b permission.Behavior, content string) permission.Rule {
		return permission.Rule{Value: permission.RuleValue{Tool: Name, Content: content}, Behavior: b, Source: permission.SourceLocal}
	}
	for _, tc := range []struct {
		deny    string
		refused bool
	}{{"0x7f.1", true}, {"2130706433", true}, {"10.0.0.1", false}} {
		tl := New(Options{CacheBytes: -1})
		env := newEnv(t, rule(permission.Allow, "domain:localhost"), rule(permission.Deny, "domain:"+tc.deny))
		raw := []byte(`{"url":"http://localhost:` + port + `/","prompt":"p"}`)
		in, err := tl.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tl.Call(context.Background(), in, env)
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].Text
		if tc.refused != res.IsError {
			t.Fatalf("deny %s: error %v (%s); want refused %v", tc.deny, res.IsError, text, tc.refused)
		}
		if tc.refused && !strings.Contains(text, "resolves to 127.0.0.1, which the deny rule") {
			t.Errorf("deny %s: %q does not say which address and rule refused it", tc.deny, text)
		}
	}
}
