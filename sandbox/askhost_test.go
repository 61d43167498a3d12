package sandbox_test

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/sandbox"
)

// probeOnly is a backend that works everywhere and confines nothing: the test talks to the
// proxy directly.
type probeOnly struct{}

func (probeOnly) Name() string                                  { return "probe-only" }
func (probeOnly) Probe(context.Context, *sandbox.Spec) error    { return nil }
func (probeOnly) Wrap(*exec.Cmd, *sandbox.Spec) (func(), error) { return nil, nil }
func (probeOnly) Describe(*sandbox.Spec) []string               { return nil }

// TestAskHostIsAskedAboutRefusedHosts: the sandbox's proxy puts a host that AllowedDomains does
// not admit to Config.AskHost, and never one DeniedDomains refuses.
func TestAskHostIsAskedAboutRefusedHosts(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	dir := t.TempDir()
	sb, err := sandbox.New(context.Background(), sandbox.Config{
		WorkingDirs: []string{dir}, Home: dir, QuarantineDir: t.TempDir(), Helper: "/bin/true", Backends: []sandbox.Backend{probeOnly{}},
		AllowedDomains: []string{"ok.test"}, DeniedDomains: []string{"bad.test", "*.bad.test"},
		AskHost: func(_ context.Context, host string, port int) bool {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, host+":"+strconv.Itoa(port))
			return host == "yes.test"
		},
		Dial: func(context.Context, string, string) (net.Conn, error) {
			a, b := net.Pipe()
			go b.Close()
			return a, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sb.Spec().ProxyPort))
	connect := func(hostport string) string {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write([]byte("CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n\r\n"))
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line
	}
	for hostport, want := range map[string]string{"ok.test:443": "200", "yes.test:443": "200", "no.test:443": "403", "bad.test:443": "403", "x.bad.test:443": "403"} {
		if got := connect(hostport); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %s", hostport, got, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(slices.Sorted(slices.Values(asked)), ",") != "no.test:443,yes.test:443" {
		t.Errorf("asked about %v, want no.test and yes.test only", asked)
	}
}
