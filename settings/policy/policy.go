package policy

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// MaxBundleBytes bounds a bundle, like any settings file.
const MaxBundleBytes = 4 << 20

// FetchTimeout bounds the fetch of the bundle and its signature together.
const FetchTimeout = 10 * time.Second

// Config is the managed settings' policyBundle.
type Config struct {
	URL string
	// PublicKey is the standard base64 of the 32-byte ed25519 key.
	PublicKey string
	// CacheDir is where verified bundles are kept (the config folder's policy folder).
	CacheDir string
	// Client fetches; nil is a client with FetchTimeout.
	Client *http.Client
	// Required makes a fetched bundle that does not verify, or rolls back, an error even when
	// a verified cached copy exists; otherwise that copy is used, with a warning.
	Required bool
}

// Result is a verified bundle.
type Result struct {
	Data    []byte
	Version int64
	// FromCache says the fetch failed and the cached bundle is used; Warning says why.
	FromCache bool
	Warning   string
}

// Fetch gets the bundle (see the package documentation for what it accepts).
func Fetch(ctx context.Context, c Config) (*Result, error) {
	key, err := ParsePublicKey(c.PublicKey)
	if err != nil {
		return nil, err
	}
	cache := c.cachePath()
	cached, cacheErr := readVerified(cache, key)
	doc, sig, fetchErr := c.fetch(ctx)
	if fetchErr != nil {
		if cacheErr != nil {
			return nil, fmt.Errorf("policy bundle %s: %w, and there is no verified cached copy (%v)", c.URL, fetchErr, cacheErr)
		}
		cached.FromCache = true
		cached.Warning = fmt.Sprintf("policy bundle %s: %v; using the cached copy, version %d", c.URL, fetchErr, cached.Version)
		return cached, nil
	}
	got, err := verify(doc, sig, key)
	if err == nil && cacheErr == nil {
		err = noRollback(got, cached)
	}
	if err != nil {
		err = fmt.Errorf("policy bundle %s: %w", c.URL, err)
		if c.Required || cacheErr != nil {
			return nil, err
		}
		cached.FromCache = true
		cached.Warning = fmt.Sprintf("%v; using the cached copy, version %d", err, cached.Version)
		return cached, nil
	}
	if err := writeCache(cache, doc, sig); err != nil {
		return nil, fmt.Errorf("policy bundle %s: caching it: %w", c.URL, err)
	}
	return got, nil
}

// noRollback refuses a fetched bundle older than the cached one, or of its version with other
// bytes.
func noRollback(got, cached *Result) error {
	switch {
	case got.Version < cached.Version:
		return fmt.Errorf("version %d is older than the verified version %d in the cache: refusing to roll back", got.Version, cached.Version)
	case got.Version == cached.Version && !bytes.Equal(got.Data, cached.Data):
		return fmt.Errorf("version %d differs from the verified bundle of the same version in the cache: a changed bundle must raise policyVersion", got.Version)
	}
	return nil
}

// fetch gets the document and its signature.
func (c Config) fetch(ctx context.Context) (doc, sig []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	client := c.Client
	if client == nil {
		client = &http.Client{}
	}
	if doc, err = get(ctx, client, c.URL); err != nil {
		return nil, nil, err
	}
	if sig, err = get(ctx, client, c.URL+".sig"); err != nil {
		return nil, nil, err
	}
	return doc, sig, nil
}

func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBundleBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", url, err)
	}
	if len(data) > MaxBundleBytes {
		return nil, fmt.Errorf("fetching %s: larger than %d bytes", url, MaxBundleBytes)
	}
	return data, nil
}

// verify checks the signature over the exact bytes, then reads the version.
func verify(doc, sig []byte, key ed25519.PublicKey) (*Result, error) {
	raw, err := parseSignature(sig)
	if err != nil {
		return nil, err
	}
	if !ed25519.Verify(key, doc, raw) {
		return nil, errors.New("the signature does not verify with the configured public key")
	}
	v, err := Version(doc)
	if err != nil {
		return nil, err
	}
	return &Result{Data: doc, Version: v}, nil
}

// Version reads a bundle's policyVersion.
func Version(doc []byte) (int64, error) {
	var top struct {
		Version json.RawMessage `json:"policyVersion"`
	}
	if err := json.Unmarshal(doc, &top); err != nil {
		return 0, fmt.Errorf("the bundle is not a JSON object: %w", err)
	}
	if top.Version == nil {
		return 0, errors.New(`the bundle has no "policyVersion" (a positive whole number raised with every change)`)
	}
	v, err := strconv.ParseInt(string(top.Version), 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("policyVersion %s is not a positive whole number", top.Version)
	}
	return v, nil
}

func parseSignature(sig []byte) ([]byte, error) {
	if len(sig) == ed25519.SignatureSize {
		return sig, nil
	}
	raw, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(sig)))
	if err != nil || len(raw) != ed25519.SignatureSize {
		return nil, fmt.Errorf("the signature is neither %d raw bytes nor their base64", ed25519.SignatureSize)
	}
	return raw, nil
}

// ParsePublicKey reads the standard base64 of a 32-byte ed25519 public key.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("policyBundle.publicKey is not the base64 of a %d-byte ed25519 public key", ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

// cachePath is the cached bundle's file, one per URL and key: a new key starts a new history.
func (c Config) cachePath() string {
	h := sha256.Sum256([]byte(c.URL + "\x00" + c.PublicKey))
	return filepath.Join(c.CacheDir, hex.EncodeToString(h[:8])+".json")
}

func readVerified(path string, key ed25519.PublicKey) (*Result, error) {
	doc, err := readCapped(path)
	if err != nil {
		return nil, err
	}
	sig, err := readCapped(path + ".sig")
	if err != nil {
		return nil, err
	}
	r, err := verify(doc, sig, key)
	if err != nil {
		return nil, fmt.Errorf("the cached copy %s: %w", path, err)
	}
	return r, nil
}

func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBundleBytes+1))
	if err == nil && len(data) > MaxBundleBytes {
		err = fmt.Errorf("%s is larger than %d bytes", path, MaxBundleBytes)
	}
	return data, err
}

// writeCache writes the signature first and the document last, each atomically: a reader
// between the two sees a pair that does not verify, which is no cache, never a wrong one.
func writeCache(path string, doc, sig []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{path + ".sig", sig}, {path, doc}} {
		tmp := f.path + ".tmp"
		if err := os.WriteFile(tmp, f.data, 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, f.path); err != nil {
			return err
		}
	}
	return nil
}

// Keygen makes a key pair: the public key's standard base64 (for policyBundle.publicKey) and
// the private key file's content (the base64 of the 32-byte seed and a newline).
func Keygen() (public string, private []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", nil, err
	}
	return base64.StdEncoding.EncodeToString(pub), []byte(base64.StdEncoding.EncodeToString(priv.Seed()) + "\n"), nil
}

// Sign signs a bundle with a private key file's content, after checking that the bundle has a
// policyVersion: the signature is the 64 raw bytes to serve at URL+".sig".
func Sign(keyFile, doc []byte) ([]byte, error) {
	seed, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(keyFile)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("the key file is not the base64 of a %d-byte ed25519 seed (reins policy keygen writes one)", ed25519.SeedSize)
	}
	if _, err := Version(doc); err != nil {
		return nil, err
	}
	return ed25519.Sign(ed25519.NewKeyFromSeed(seed), doc), nil
}

// PublicKeyOf is the public key (standard base64) of a private key file's content.
func PublicKeyOf(keyFile []byte) (string, error) {
	seed, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(keyFile)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return "", fmt.Errorf("the key file is not the base64 of a %d-byte ed25519 seed", ed25519.SeedSize)
	}
	return base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)), nil
}
