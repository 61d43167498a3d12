package sandbox_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/sandbox"
)

// cachedProbe is a backend whose probe always fails: only the probe cache can vouch for it.
type cachedProbe struct{ probeOnly }

func (cachedProbe) Name() string                               { return "cached" }
func (cachedProbe) Probe(context.Context, *sandbox.Spec) error { return os.ErrPermission }
func (cachedProbe) ProbeKey(*sandbox.Spec) string              { return "this machine" }

// TestSandboxIsMadeAtTheFirstCommand: with a backend the probe cache vouches for, New makes
// nothing — no temporary directory, no proxy — until a command needs the sandbox, and then
// once; without one, New tries the backends at once (and so makes it).
func TestSandboxIsMadeAtTheFirstCommand(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(t.TempDir(), "probe.json")
	b, _ := json.Marshal(map[string]any{"worked": map[string]string{"cached": "this machine"}})
	if err := os.WriteFile(cache, b, 0o600); err != nil {
		t.Fatal(err)
	}
	starts := 0
	cfg := sandbox.Config{WorkingDirs: []string{dir}, QuarantineDir: t.TempDir(), Helper: "/bin/true",
		Backends: []sandbox.Backend{cachedProbe{}}, ProbeCache: cache, OnStart: func() { starts++ }}
	sb, err := sandbox.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if starts != 0 {
		t.Fatalf("New made the sandbox (%d starts) though the cache vouches for its backend", starts)
	}
	if sb.Backend() != "cached" {
		t.Errorf("backend %q, want the cached one", sb.Backend())
	}
	if sb.Spec().ProxyPort == 0 || starts != 1 {
		t.Errorf("after Spec: proxy port %d, %d starts; want a proxy and one start", sb.Spec().ProxyPort, starts)
	}
	_ = sb.TempDir()
	if starts != 1 {
		t.Errorf("%d starts, want one", starts)
	}

	// Without the cache the probe runs at New, which needs the sandbox made; this backend's
	// probe fails, so New fails, naming it.
	cfg.ProbeCache, starts = filepath.Join(t.TempDir(), "none.json"), 0
	if _, err := sandbox.New(context.Background(), cfg); err == nil || starts != 1 {
		t.Errorf("uncached: err %v, %d starts; want the backend's refusal after one start", err, starts)
	}
}
