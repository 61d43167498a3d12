package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// loopback is NO_PROXY's value: a command's own test server is reached directly, never
// through the proxy (which would refuse it). Under bubblewrap loopback is the sandbox's own;
// under Landlock a connection to it is refused like any other but the proxy's.
const loopback = "localhost,127.0.0.1,::1"

// cacheDirs are the folders under Config.CacheDir, by the variable that points a toolchain at
// each.
var cacheDirs = []struct{ env, dir string }{
	{"GOCACHE", "go-build"},
	{"GOMODCACHE", "go-mod"},
	{"npm_config_cache", "npm"},
	{"PIP_CACHE_DIR", "pip"},
	{"CARGO_HOME", "cargo"},
	{"XDG_CACHE_HOME", "cache"},
}

// prepareCaches creates the cache folders, so that each is a write root from the first
// command on.
func (s *Sandbox) prepareCaches() error {
	if s.cfg.CacheDir == "" {
		return nil
	}
	for _, c := range cacheDirs {
		if err := os.MkdirAll(filepath.Join(s.cfg.CacheDir, c.dir), 0o700); err != nil {
			return fmt.Errorf("sandbox: creating the cache folder: %w", err)
		}
	}
	s.cfg.CacheDir = resolve(s.cfg.CacheDir)
	return nil
}

// commandEnv returns the variables a sandboxed command gets on top of env (its own).
func (s *Sandbox) commandEnv(env []string) []string {
	http := "http://127.0.0.1:" + strconv.Itoa(s.port)
	socks := "socks5h://127.0.0.1:" + strconv.Itoa(s.port)
	vars := []string{
		"HTTP_PROXY=" + http, "HTTPS_PROXY=" + http, "http_proxy=" + http, "https_proxy=" + http,
		"ALL_PROXY=" + socks, "all_proxy=" + socks, "NO_PROXY=" + loopback, "no_proxy=" + loopback,
		"TMPDIR=" + s.cfg.TempDir, "REINS_SANDBOX=1",
	}
	if s.cfg.CacheDir == "" {
		return vars
	}
	for _, c := range cacheDirs {
		vars = append(vars, c.env+"="+filepath.Join(s.cfg.CacheDir, c.dir))
	}
	// npm and pip look for newer versions of themselves on every run; through the proxy that
	// is a refused connection reported after every command, unless the registry is allowed.
	vars = append(vars, "npm_config_update_notifier=false", "PIP_DISABLE_PIP_VERSION_CHECK=1")
	// The host's module cache stays the first place go looks for modules, read-only through
	// the file:// protocol: a build needs no network for what the host has downloaded.
	if mods := hostModCache(env, s.cfg.Home); mods != "" {
		orig := lookup(env, "GOPROXY")
		if orig == "" {
			orig = "https://proxy.golang.org,direct"
		}
		vars = append(vars, "GOPROXY=file://"+filepath.Join(mods, "cache", "download")+","+orig)
	}
	return vars
}

// hostModCache is the module cache go would use with env, "" when it has none.
func hostModCache(env []string, home string) string {
	dir := lookup(env, "GOMODCACHE")
	if dir == "" {
		if gopath := lookup(env, "GOPATH"); gopath != "" {
			dir = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
		} else if h := lookup(env, "HOME"); h != "" {
			dir = filepath.Join(h, "go", "pkg", "mod")
		} else if home != "" {
			dir = filepath.Join(home, "go", "pkg", "mod")
		}
	}
	if dir == "" || !filepath.IsAbs(dir) || !isDir(filepath.Join(dir, "cache", "download")) {
		return ""
	}
	return dir
}

// lookup returns the value of name in env, the last one when it is set twice.
func lookup(env []string, name string) string {
	v := ""
	for _, e := range env {
		if after, ok := strings.CutPrefix(e, name+"="); ok {
			v = after
		}
	}
	return v
}

// withEnv sets vars (NAME=value) in env, replacing earlier values.
func withEnv(env, vars []string) []string {
	names := map[string]bool{}
	for _, v := range vars {
		names[v[:strings.IndexByte(v, '=')]] = true
	}
	out := make([]string, 0, len(env)+len(vars))
	for _, e := range env {
		if i := strings.IndexByte(e, '='); i >= 0 && names[e[:i]] {
			continue
		}
		out = append(out, e)
	}
	return append(out, vars...)
}
