package policy

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// server serves a bundle and its signature, which a test may change between fetches.
type server struct {
	mu       sync.Mutex
	doc, sig []byte
	down     bool
}

func (s *server) set(doc, sig []byte) {
	s.mu.Lock()
	s.doc, s.sig = doc, sig
	s.mu.Unlock()
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.down:
		http.Error(w, "down", http.StatusServiceUnavailable)
	case r.URL.Path == "/policy.json":
		w.Write(s.doc)
	case r.URL.Path == "/policy.json.sig":
		w.Write(s.sig)
	default:
		http.NotFound(w, r)
	}
}

type fixture struct {
	srv  *server
	cfg  Config
	key  []byte
	http *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pub, priv, err := Keygen()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return &fixture{srv: s, key: priv, http: hs, cfg: Config{URL: hs.URL + "/policy.json", PublicKey: pub, CacheDir: t.TempDir()}}
}

func (f *fixture) serve(t *testing.T, doc string) {
	t.Helper()
	sig, err := Sign(f.key, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	f.srv.set([]byte(doc), sig)
}

const v1 = `{"policyVersion": 1, "permissions": {"deny": ["Bash(rm:*)"]}}`
const v2 = `{"policyVersion": 2, "permissions": {"deny": ["Bash(rm:*)", "WebFetch"]}}`

func TestFetch(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, f *fixture) // what happened before (a first fetch fills the cache)
		then    func(t *testing.T, f *fixture)
		want    int64
		cached  bool
		wantErr string
		// optional runs with Required false; warning is part of the warning then.
		optional bool
		warning  string
	}{
		{name: "a signed bundle", then: func(t *testing.T, f *fixture) { f.serve(t, v1) }, want: 1},
		{name: "an upgrade", setup: func(t *testing.T, f *fixture) { f.serve(t, v1) }, then: func(t *testing.T, f *fixture) { f.serve(t, v2) }, want: 2},
		{name: "a tampered bundle", then: func(t *testing.T, f *fixture) {
			f.serve(t, v1)
			f.srv.doc = []byte(strings.Replace(v1, "rm:*", "rx:*", 1))
		}, wantErr: "the signature does not verify"},
		{name: "a signature by another key", then: func(t *testing.T, f *fixture) {
			_, other, _ := Keygen()
			sig, _ := Sign(other, []byte(v1))
			f.srv.set([]byte(v1), sig)
		}, wantErr: "the signature does not verify"},
		{name: "rollback", setup: func(t *testing.T, f *fixture) { f.serve(t, v2) }, then: func(t *testing.T, f *fixture) { f.serve(t, v1) },
			wantErr: "version 1 is older than the verified version 2 in the cache: refusing to roll back"},
		{name: "rollback, not required", optional: true, setup: func(t *testing.T, f *fixture) { f.serve(t, v2) }, then: func(t *testing.T, f *fixture) { f.serve(t, v1) },
			want: 2, cached: true, warning: "refusing to roll back; using the cached copy, version 2"},
		{name: "tampered, not required, with a cache", optional: true, setup: func(t *testing.T, f *fixture) { f.serve(t, v1) }, then: func(t *testing.T, f *fixture) {
			f.srv.doc = []byte(strings.Replace(v1, "rm:*", "rx:*", 1))
		}, want: 1, cached: true, warning: "the signature does not verify with the configured public key; using the cached copy, version 1"},
		{name: "tampered, not required, no cache", optional: true, then: func(t *testing.T, f *fixture) {
			f.serve(t, v1)
			f.srv.doc = []byte(strings.Replace(v1, "rm:*", "rx:*", 1))
		}, wantErr: "the signature does not verify"},
		{name: "same version, other bytes", setup: func(t *testing.T, f *fixture) { f.serve(t, v1) },
			then:    func(t *testing.T, f *fixture) { f.serve(t, strings.Replace(v1, "rm", "mv", 1)) },
			wantErr: "a changed bundle must raise policyVersion"},
		{name: "unreachable with a cache", setup: func(t *testing.T, f *fixture) { f.serve(t, v2) }, then: func(t *testing.T, f *fixture) { f.srv.down = true },
			want: 2, cached: true},
		{name: "unreachable without a cache", then: func(t *testing.T, f *fixture) { f.srv.down = true },
			wantErr: "503 Service Unavailable, and there is no verified cached copy"},
		{name: "unreachable with a changed cache", setup: func(t *testing.T, f *fixture) { f.serve(t, v1) }, then: func(t *testing.T, f *fixture) {
			os.WriteFile(f.cfg.cachePath(), []byte(strings.Replace(v1, "rm", "mv", 1)), 0o600)
			f.srv.down = true
		}, wantErr: "no verified cached copy"},
		{name: "no version", then: func(t *testing.T, f *fixture) {
			doc := []byte(`{"permissions": {}}`)
			seed, _ := base64.StdEncoding.DecodeString(strings.TrimSpace(string(f.key)))
			f.srv.set(doc, ed25519.Sign(ed25519.NewKeyFromSeed(seed), doc))
		}, wantErr: `the bundle has no "policyVersion"`},
		{name: "a signature that is no signature", then: func(t *testing.T, f *fixture) { f.srv.set([]byte(v1), []byte("nope")) },
			wantErr: "neither 64 raw bytes nor their base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.cfg.Required = !tt.optional
			if tt.setup != nil {
				tt.setup(t, f)
				if _, err := Fetch(context.Background(), f.cfg); err != nil {
					t.Fatalf("first fetch: %v", err)
				}
			}
			tt.then(t, f)
			r, err := Fetch(context.Background(), f.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Fetch = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != tt.want || r.FromCache != tt.cached || (r.FromCache && r.Warning == "") || !strings.Contains(r.Warning, tt.warning) {
				t.Errorf("Fetch = version %d, from cache %v (%q), want %d, %v", r.Version, r.FromCache, r.Warning, tt.want, tt.cached)
			}
		})
	}
}

func TestSignatureMayBeBase64(t *testing.T) {
	f := newFixture(t)
	sig, _ := Sign(f.key, []byte(v1))
	f.srv.set([]byte(v1), []byte(base64.StdEncoding.EncodeToString(sig)+"\n"))
	if _, err := Fetch(context.Background(), f.cfg); err != nil {
		t.Fatal(err)
	}
}

func TestKeys(t *testing.T) {
	pub, priv, _ := Keygen()
	if got, err := PublicKeyOf(priv); err != nil || got != pub {
		t.Errorf("PublicKeyOf = %q, %v, want %q", got, err, pub)
	}
	if _, err := Sign([]byte("not a key"), []byte(v1)); err == nil || !strings.Contains(err.Error(), "reins policy keygen") {
		t.Errorf("Sign with a bad key = %v", err)
	}
	if _, err := Sign(priv, []byte(`{"permissions": {}}`)); err == nil || !strings.Contains(err.Error(), "policyVersion") {
		t.Errorf("Sign of a bundle without a version = %v", err)
	}
	if _, err := Fetch(context.Background(), Config{URL: "http://127.0.0.1:1/p.json", PublicKey: "short"}); err == nil || !strings.Contains(err.Error(), "publicKey") {
		t.Errorf("Fetch with a bad key = %v", err)
	}
}
