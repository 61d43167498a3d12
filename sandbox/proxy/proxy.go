// Package proxy is the network gate of sandboxed commands: a loopback proxy speaking HTTP
// (CONNECT and absolute-URL requests) and SOCKS5 on the same port, which lets a connection
// through only to a host its Allow function accepts and records every host it refused.
//
// A sandboxed command reaches the network only through this proxy: the bubblewrap backend
// gives it no network but a bridge to the proxy, the Landlock backend lets it connect to the
// proxy's port alone. The proxy decides by the host name the client asked for; it never
// resolves a name to decide.
package proxy

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Refusal is a connection the proxy refused.
type Refusal struct {
	Host string    `json:"host"`
	Port int       `json:"port"`
	Via  string    `json:"via"` // "http", "connect" or "socks5"
	At   time.Time `json:"at"`
}

// DefaultAskTimeout bounds how long a connection waits for Ask's answer.
const DefaultAskTimeout = 2 * time.Minute

// Proxy is a filtering HTTP and SOCKS5 proxy. Set its fields before Serve.
type Proxy struct {
	// Allow reports whether a connection to host (a lower-cased name or IP literal without
	// port) may go through.
	Allow func(host string) bool
	// Ask, if set, is asked about a connection Allow refused, while the client waits: true lets
	// it through, false refuses it (and records the refusal). Its context ends after
	// AskTimeout or when the proxy closes. Refused connections to the same host and port that
	// arrive while an ask is open wait for that ask's answer rather than asking again. Ask
	// must itself refuse hosts that must never be asked about (a deny list).
	Ask func(ctx context.Context, host string, port int) bool
	// AskTimeout bounds an Ask; 0 is DefaultAskTimeout.
	AskTimeout time.Duration
	// Dial opens the upstream connection; nil means a net.Dialer with a 30 s timeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// OnRefuse, if set, is called for every refusal (for logs).
	OnRefuse func(Refusal)

	mu        sync.Mutex
	refused   []Refusal
	listeners []net.Listener
	conns     map[net.Conn]struct{}
	closed    bool
	wg        sync.WaitGroup
	// asking are the open asks by host:port; stop ends them when the proxy closes.
	asking map[string]*openAsk
	stop   context.Context
	cancel context.CancelFunc
}

// openAsk is an ask in progress; done closes when ok holds its answer.
type openAsk struct {
	done chan struct{}
	ok   bool
}

// Serve accepts connections on l until the proxy is closed. It returns at once; the proxy
// owns l from then on.
func (p *Proxy) Serve(l net.Listener) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.Close()
		return
	}
	p.listeners = append(p.listeners, l)
	if p.conns == nil {
		p.conns = map[net.Conn]struct{}{}
		p.asking = map[string]*openAsk{}
		p.stop, p.cancel = context.WithCancel(context.Background())
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if !p.track(c) {
				c.Close()
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer p.untrack(c)
				p.handle(c)
			}()
		}
	}()
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// Close stops the listeners, ends every open connection and waits for the handlers.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	if p.cancel != nil {
		p.cancel()
	}
	for _, l := range p.listeners {
		l.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// Refused returns the refusals from index from on (pass the length of an earlier answer to
// get only the new ones).
func (p *Proxy) Refused(from int) []Refusal {
	p.mu.Lock()
	defer p.mu.Unlock()
	if from >= len(p.refused) {
		return nil
	}
	return append([]Refusal(nil), p.refused[from:]...)
}

// RefusedCount is how many connections have been refused so far.
func (p *Proxy) RefusedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.refused)
}

func (p *Proxy) allowed(host string, port int, via string) bool {
	host = NormalizeHost(host)
	if p.Allow != nil && host != "" && p.Allow(host) {
		return true
	}
	if host != "" && p.ask(host, port) {
		return true
	}
	r := Refusal{Host: host, Port: port, Via: via, At: time.Now()}
	p.mu.Lock()
	p.refused = append(p.refused, r)
	p.mu.Unlock()
	if p.OnRefuse != nil {
		p.OnRefuse(r)
	}
	return false
}

// ask puts a refused connection to Ask, or waits for the answer of the ask about the same
// host and port already open. Without Ask, once the proxy is closed, or when Ask panics, the
// answer is no.
func (p *Proxy) ask(host string, port int) (ok bool) {
	if p.Ask == nil {
		return false
	}
	key := net.JoinHostPort(host, strconv.Itoa(port))
	p.mu.Lock()
	if p.closed || p.stop == nil {
		p.mu.Unlock()
		return false
	}
	if open, found := p.asking[key]; found {
		p.mu.Unlock()
		<-open.done
		return open.ok
	}
	open := &openAsk{done: make(chan struct{})}
	p.asking[key] = open
	stop := p.stop
	p.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
		p.mu.Lock()
		delete(p.asking, key)
		p.mu.Unlock()
		open.ok = ok
		close(open.done)
	}()
	ctx, cancel := context.WithTimeout(stop, cmp.Or(p.AskTimeout, DefaultAskTimeout))
	defer cancel()
	ok = p.Ask(ctx, host, port)
	// A yes that comes after the bound is not taken: the asker had given up on the question.
	return ok && ctx.Err() == nil
}

// NormalizeHost lower-cases a host and drops a trailing dot and IPv6 brackets.
func NormalizeHost(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

func (p *Proxy) dial(ctx context.Context, addr string) (net.Conn, error) {
	if p.Dial != nil {
		return p.Dial(ctx, "tcp", addr)
	}
	d := net.Dialer{Timeout: 30 * time.Second}
	return d.DialContext(ctx, "tcp", addr)
}

// handle serves one client connection; the first byte tells SOCKS5 (5) from HTTP.
func (p *Proxy) handle(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	b, err := br.Peek(1)
	if err != nil {
		return
	}
	if b[0] == 5 {
		p.socks(c, br)
		return
	}
	p.http(c, br)
}

func (p *Proxy) http(c net.Conn, br *bufio.Reader) {
	req, err := http.ReadRequest(br)
	if err != nil {
		writeStatus(c, http.StatusBadRequest, "Reins sandbox proxy: malformed request")
		return
	}
	if req.Method == http.MethodConnect {
		host, portStr, err := net.SplitHostPort(req.Host)
		port, perr := strconv.Atoi(portStr)
		if err != nil || perr != nil {
			writeStatus(c, http.StatusBadRequest, "Reins sandbox proxy: CONNECT needs host:port")
			return
		}
		if !p.allowed(host, port, "connect") {
			writeStatus(c, http.StatusForbidden, refusedText(host))
			return
		}
		up, err := p.dial(context.Background(), net.JoinHostPort(NormalizeHost(host), portStr))
		if err != nil {
			writeStatus(c, http.StatusBadGateway, "Reins sandbox proxy: "+err.Error())
			return
		}
		defer up.Close()
		_ = c.SetReadDeadline(time.Time{})
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
			return
		}
		pipe(c, br, up)
		return
	}
	if req.URL == nil || req.URL.Host == "" || req.URL.Scheme != "http" {
		writeStatus(c, http.StatusBadRequest, "Reins sandbox proxy: only CONNECT and absolute http:// URLs are proxied")
		return
	}
	host := req.URL.Hostname()
	portStr := req.URL.Port()
	if portStr == "" {
		portStr = "80"
	}
	port, _ := strconv.Atoi(portStr)
	if !p.allowed(host, port, "http") {
		writeStatus(c, http.StatusForbidden, refusedText(host))
		return
	}
	up, err := p.dial(req.Context(), net.JoinHostPort(NormalizeHost(host), portStr))
	if err != nil {
		writeStatus(c, http.StatusBadGateway, "Reins sandbox proxy: "+err.Error())
		return
	}
	defer up.Close()
	_ = c.SetReadDeadline(time.Time{})
	// One request per connection: a keep-alive client could otherwise send its next request
	// for another host down this upstream connection.
	req.Header.Del("Proxy-Connection")
	req.Header.Del("Proxy-Authorization")
	req.Close = true
	req.RequestURI = ""
	// The upstream must see the host that was checked, not a Host header naming another site
	// behind the same server (domain fronting). http.ReadRequest already prefers the absolute
	// URL's host (RFC 9112); clearing Host makes Write use the URL's host in any case.
	req.Host = ""
	if err := req.Write(up); err != nil {
		return
	}
	_, _ = io.Copy(c, up)
}

func refusedText(host string) string {
	return fmt.Sprintf("Reins sandbox proxy: connection to %s refused: the host is not in sandbox.network.allowedDomains or a WebFetch allow rule", host)
}

func writeStatus(c net.Conn, code int, msg string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n",
		code, http.StatusText(code), len(msg)+1, msg)
}

// pipe copies both ways until either side is done.
func pipe(c net.Conn, br *bufio.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(up, br)
		if cw, ok := up.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(c, up)
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		done <- struct{}{}
	}()
	<-done
	<-done
}

// SOCKS5 reply codes.
const (
	socksOK           = 0
	socksFailure      = 1
	socksNotAllowed   = 2
	socksCmdUnsupp    = 7
	socksAddrUnsupp   = 8
	socksVersion      = 5
	socksNoAuth       = 0
	socksNoAcceptable = 0xff
)

func (p *Proxy) socks(c net.Conn, br *bufio.Reader) {
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	if !containsByte(methods, socksNoAuth) {
		_, _ = c.Write([]byte{socksVersion, socksNoAcceptable})
		return
	}
	if _, err := c.Write([]byte{socksVersion, socksNoAuth}); err != nil {
		return
	}
	req := make([]byte, 4)
	if _, err := io.ReadFull(br, req); err != nil || req[0] != socksVersion {
		return
	}
	var host string
	switch req[3] {
	case 1:
		b := make([]byte, 4)
		if _, err := io.ReadFull(br, b); err != nil {
			return
		}
		host = net.IP(b).String()
	case 4:
		b := make([]byte, 16)
		if _, err := io.ReadFull(br, b); err != nil {
			return
		}
		host = net.IP(b).String()
	case 3:
		n, err := br.ReadByte()
		if err != nil {
			return
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return
		}
		host = string(b)
	default:
		socksReply(c, socksAddrUnsupp)
		return
	}
	pb := make([]byte, 2)
	if _, err := io.ReadFull(br, pb); err != nil {
		return
	}
	port := int(binary.BigEndian.Uint16(pb))
	if req[1] != 1 { // only CONNECT; BIND and UDP ASSOCIATE would open other paths out
		socksReply(c, socksCmdUnsupp)
		return
	}
	if !p.allowed(host, port, "socks5") {
		socksReply(c, socksNotAllowed)
		return
	}
	up, err := p.dial(context.Background(), net.JoinHostPort(NormalizeHost(host), strconv.Itoa(port)))
	if err != nil {
		socksReply(c, socksFailure)
		return
	}
	defer up.Close()
	_ = c.SetReadDeadline(time.Time{})
	socksReply(c, socksOK)
	pipe(c, br, up)
}

func socksReply(c net.Conn, code byte) {
	_, _ = c.Write([]byte{socksVersion, code, 0, 1, 0, 0, 0, 0, 0, 0})
}

func containsByte(b []byte, x byte) bool {
	for _, v := range b {
		if v == x {
			return true
		}
	}
	return false
}

// Matcher returns an Allow function for a domain list: an entry "example.com" admits exactly
// that host, "*.example.com" admits its subdomains (not example.com itself). Entries are
// compared case-insensitively; IP literals match only when listed as written.
func Matcher(allowed, denied []string) func(host string) bool {
	norm := func(l []string) []string {
		out := make([]string, 0, len(l))
		for _, d := range l {
			out = append(out, NormalizeHost(d))
		}
		return out
	}
	al, dl := norm(allowed), norm(denied)
	match := func(list []string, host string) bool {
		for _, d := range list {
			if sub, ok := strings.CutPrefix(d, "*."); ok {
				if strings.HasSuffix(host, "."+sub) {
					return true
				}
			} else if host == d {
				return true
			}
		}
		return false
	}
	return func(host string) bool {
		host = NormalizeHost(host)
		return !match(dl, host) && match(al, host)
	}
}
