package proxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMatcher(t *testing.T) {
	allow := Matcher([]string{"example.com", "*.github.com", "Registry.NPMJS.org", "127.0.0.1"}, []string{"evil.github.com"})
	for host, want := range map[string]bool{
		"example.com":         true,
		"EXAMPLE.com.":        true,
		"www.example.com":     false,
		"github.com":          false,
		"api.github.com":      true,
		"a.b.github.com":      true,
		"evil.github.com":     false,
		"notgithub.com":       false,
		"registry.npmjs.org":  true,
		"127.0.0.1":           true,
		"127.0.0.2":           false,
		"example.com.evil.io": false,
		"":                    false,
	} {
		if got := allow(host); got != want {
			t.Errorf("%q: %v, want %v", host, got, want)
		}
	}
}

// start runs a proxy whose every upstream is the test server, and returns its address.
func start(t *testing.T, allowed ...string) (*Proxy, string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream saw "+r.Host+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	p := &Proxy{Allow: Matcher(allowed, nil), Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.Serve(l)
	t.Cleanup(func() { p.Close() })
	return p, l.Addr().String()
}

func TestHTTPForwardAndConnect(t *testing.T) {
	p, addr := start(t, "ok.test")
	u, _ := url.Parse("http://" + addr)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
	resp, err := client.Get("http://ok.test/a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "upstream saw ok.test/a" {
		t.Errorf("forwarded response %q", b)
	}
	// A Host header naming another site is not passed on: the upstream sees the checked host.
	c0, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c0, "GET http://ok.test/f HTTP/1.1\r\nHost: evil.test\r\n\r\n")
	fr, err := http.ReadResponse(bufio.NewReader(c0), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(fr.Body)
	c0.Close()
	if string(b) != "upstream saw ok.test/f" {
		t.Errorf("fronted request reached the upstream as %q", b)
	}
	resp, err = client.Get("http://no.test/b")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("refused host: status %d", resp.StatusCode)
	}

	// CONNECT tunnels bytes once allowed.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT ok.test:443 HTTP/1.1\r\nHost: ok.test:443\r\n\r\n")
	br := bufio.NewReader(c)
	line, _ := br.ReadString('\n')
	if !strings.Contains(line, "200") {
		t.Fatalf("CONNECT answer %q", line)
	}
	br.ReadString('\n')
	io.WriteString(c, "GET /tunnel HTTP/1.1\r\nHost: ok.test\r\nConnection: close\r\n\r\n")
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	if string(b) != "upstream saw ok.test/tunnel" {
		t.Errorf("tunnelled response %q", b)
	}

	c2, _ := net.Dial("tcp", addr)
	defer c2.Close()
	io.WriteString(c2, "CONNECT bad.test:443 HTTP/1.1\r\nHost: bad.test:443\r\n\r\n")
	line, _ = bufio.NewReader(c2).ReadString('\n')
	if !strings.Contains(line, "403") {
		t.Errorf("refused CONNECT answer %q", line)
	}
	got := p.Refused(0)
	if len(got) != 2 || got[0].Host != "no.test" || got[0].Via != "http" || got[1].Host != "bad.test" || got[1].Port != 443 || got[1].Via != "connect" {
		t.Errorf("refusals %+v", got)
	}
	if len(p.Refused(1)) != 1 || p.RefusedCount() != 2 {
		t.Error("Refused(from) does not skip earlier refusals")
	}
}

func socksConnect(t *testing.T, addr string, atyp byte, host []byte, port uint16) (byte, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte{5, 1, 0})
	hello := make([]byte, 2)
	if _, err := io.ReadFull(c, hello); err != nil || hello[1] != 0 {
		t.Fatalf("greeting %v %v", hello, err)
	}
	req := []byte{5, 1, 0, atyp}
	if atyp == 3 {
		req = append(req, byte(len(host)))
	}
	req = append(req, host...)
	req = binary.BigEndian.AppendUint16(req, port)
	c.Write(req)
	rep := make([]byte, 10)
	if _, err := io.ReadFull(c, rep); err != nil {
		t.Fatal(err)
	}
	return rep[1], c
}

func TestSOCKS5(t *testing.T) {
	p, addr := start(t, "ok.test", "10.1.2.3")
	code, c := socksConnect(t, addr, 3, []byte("ok.test"), 80)
	if code != socksOK {
		t.Fatalf("allowed domain: reply %d", code)
	}
	io.WriteString(c, "GET /s HTTP/1.1\r\nHost: ok.test\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	c.Close()
	if string(b) != "upstream saw ok.test/s" {
		t.Errorf("response %q", b)
	}
	if code, c := socksConnect(t, addr, 1, []byte{10, 1, 2, 3}, 80); code != socksOK {
		t.Errorf("allowed IPv4 literal: reply %d", code)
	} else {
		c.Close()
	}
	code, c = socksConnect(t, addr, 3, []byte("nope.test"), 80)
	c.Close()
	if code != socksNotAllowed {
		t.Errorf("refused domain: reply %d", code)
	}
	code, c = socksConnect(t, addr, 1, []byte{127, 0, 0, 1}, 22)
	c.Close()
	if code != socksNotAllowed {
		t.Errorf("refused IP: reply %d", code)
	}
	if r := p.Refused(0); len(r) != 2 || r[0].Host != "nope.test" || r[1].Host != "127.0.0.1" || r[1].Via != "socks5" {
		t.Errorf("refusals %+v", r)
	}
}

// FuzzHandle feeds arbitrary client bytes to the proxy: whatever a sandboxed command sends,
// the proxy must not panic, and it must never reach an upstream for a host it does not allow.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		"GET http://ok.test/ HTTP/1.1\r\nHost: ok.test\r\n\r\n",
		"CONNECT ok.test:443 HTTP/1.1\r\n\r\n",
		"CONNECT evil.test:443 HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\n\r\n",
		"\x05\x01\x00\x05\x01\x00\x03\x07ok.test\x00\x50",
		"\x05\x01\x00\x05\x01\x00\x03\x09evil.test\x00\x50",
		"\x05\x01\x00\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x16",
		"\x05\xff",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var dialed []string
		p := &Proxy{Allow: Matcher([]string{"ok.test"}, nil), Dial: func(_ context.Context, _, addr string) (net.Conn, error) {
			dialed = append(dialed, addr)
			a, b := net.Pipe()
			b.Close()
			return a, nil
		}}
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.handle(server)
			server.Close()
		}()
		client.SetDeadline(time.Now().Add(2 * time.Second))
		go func() { io.Copy(io.Discard, client) }()
		client.Write(data)
		client.Close()
		<-done
		for _, a := range dialed {
			host, _, _ := net.SplitHostPort(a)
			if host != "ok.test" {
				t.Fatalf("dialed %q, which is not allowed", a)
			}
		}
	})
}

// askingProxy runs a proxy like start whose Ask sends each question to asks and waits for the
// answer on answers (or the end of its context).
func askingProxy(t *testing.T, timeout time.Duration) (p *Proxy, addr string, asks chan string, answers chan bool) {
	t.Helper()
	asks, answers = make(chan string, 10), make(chan bool, 10)
	p, addr = start(t, "ok.test")
	p.AskTimeout = timeout
	p.Ask = func(ctx context.Context, host string, port int) bool {
		asks <- net.JoinHostPort(host, strconv.Itoa(port))
		select {
		case ok := <-answers:
			return ok
		case <-ctx.Done():
			return false
		}
	}
	return p, addr, asks, answers
}

func connectLine(t *testing.T, addr, hostport string) (string, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, "CONNECT "+hostport+" HTTP/1.1\r\nHost: "+hostport+"\r\n\r\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	return line, c
}

// TestAskHoldsTheConnection: a host Allow refuses is put to Ask while the client waits; a yes
// lets the connection through and records no refusal, a no refuses it as before. Connections
// to the same host that come while the ask is open share its answer.
func TestAskHoldsTheConnection(t *testing.T) {
	p, addr, asks, answers := askingProxy(t, 0)
	lines := make(chan string, 2)
	for range 2 {
		go func() {
			line, c := connectLine(t, addr, "ask.test:443")
			c.Close()
			lines <- line
		}()
	}
	if got := <-asks; got != "ask.test:443" {
		t.Fatalf("asked about %q", got)
	}
	// The second connection is held by the open ask, not asked about again.
	select {
	case got := <-asks:
		t.Fatalf("asked a second time, about %q", got)
	case <-time.After(200 * time.Millisecond):
	}
	answers <- true
	for range 2 {
		if line := <-lines; !strings.Contains(line, "200") {
			t.Errorf("allowed by the answer, CONNECT got %q", line)
		}
	}
	if n := p.RefusedCount(); n != 0 {
		t.Errorf("%d refusals recorded for an allowed host", n)
	}

	// No: refused and recorded, as without Ask. Allowed hosts are not asked about.
	go func() { answers <- false }()
	line, c := connectLine(t, addr, "no.test:443")
	c.Close()
	if !strings.Contains(line, "403") || <-asks != "no.test:443" {
		t.Errorf("refused by the answer, CONNECT got %q", line)
	}
	if line, c := connectLine(t, addr, "ok.test:443"); !strings.Contains(line, "200") {
		t.Errorf("allowed host: %q", line)
	} else {
		c.Close()
	}
	select {
	case got := <-asks:
		t.Errorf("asked about %q, which Allow allows", got)
	default:
	}
	if r := p.Refused(0); len(r) != 1 || r[0].Host != "no.test" {
		t.Errorf("refusals %+v", r)
	}

	// SOCKS5 and plain HTTP are asked about the same way.
	go func() { <-asks; answers <- true }()
	if code, c := socksConnect(t, addr, 3, []byte("socks.test"), 80); code != socksOK {
		t.Errorf("SOCKS5 allowed by the answer: reply %d", code)
	} else {
		c.Close()
	}
	go func() { <-asks; answers <- true }()
	u, _ := url.Parse("http://" + addr)
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
	resp, err := client.Get("http://plain.test/p")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "upstream saw plain.test/p" {
		t.Errorf("HTTP allowed by the answer: %d %q", resp.StatusCode, b)
	}
}

// TestAskIsBounded: a question nobody answers ends at AskTimeout, and the proxy's Close ends
// the open ones; both refuse. An Ask that panics refuses too.
func TestAskIsBounded(t *testing.T) {
	p, addr, asks, _ := askingProxy(t, 100*time.Millisecond)
	line, c := connectLine(t, addr, "slow.test:443")
	c.Close()
	<-asks
	if !strings.Contains(line, "403") {
		t.Errorf("unanswered ask: %q", line)
	}
	if r := p.Refused(0); len(r) != 1 || r[0].Host != "slow.test" {
		t.Errorf("refusals %+v", r)
	}

	p2, addr2, asks2, _ := askingProxy(t, time.Hour)
	got := make(chan string, 1)
	go func() {
		line, c := connectLine(t, addr2, "held.test:443")
		c.Close()
		got <- line
	}()
	<-asks2
	p2.Close()
	if line := <-got; strings.Contains(line, "200") {
		t.Errorf("the proxy closed while asking, yet CONNECT got %q", line)
	}

	p3, addr3 := start(t)
	p3.Ask = func(context.Context, string, int) bool { panic("asker broke") }
	line, c = connectLine(t, addr3, "boom.test:443")
	c.Close()
	if !strings.Contains(line, "403") {
		t.Errorf("a panicking Ask: %q", line)
	}
}
