package sessionsandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/built"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/proxy"
	"github.com/reinsdev/reins/settings"
)

// Settings are what of a session's settings its sandbox is built from.
type Settings struct {
	// Loaded are the settings read; Trusted says the project was trusted, which decides
	// whether its sandbox settings apply (settings.Loaded.Sandbox).
	Loaded  *settings.Loaded
	Trusted bool
	// Context is the settings' permission context (not a restored session's): whether its
	// policy enables the sandbox decides whether the sandbox is on by default.
	Context *permission.Context
	// ConfigDir is the config folder, which holds the quarantine; "" has none.
	ConfigDir string
}

// Options are what the OS sandbox of a session is built from beyond its settings.
type Options struct {
	// Executable is the path of the reins binary, which the backends start inside the
	// sandbox as their helper.
	Executable func() (string, error)
	// Getenv reads REINS_SANDBOX_BACKEND.
	Getenv func(string) string
	// AskHost, if set, answers for a host the allowed domains do not admit (see
	// sandbox.Config.AskHost); nil refuses those hosts.
	AskHost func(ctx context.Context, host string, port int) bool
}

// maxReadDenyWalk bounds how many entries are looked at to find the paths a Read deny
// pattern covers.
const maxReadDenyWalk = 50000

// Config turns the settings and the permission context pc into the sandbox's configuration.
// Notes say what could not be carried over completely.
func Config(ctx context.Context, s Settings, pc *permission.Context, o Options) (sandbox.Config, []string, error) {
	sb, _ := s.Loaded.Sandbox(s.Trusted)
	helper, err := o.Executable()
	if err != nil {
		return sandbox.Config{}, nil, fmt.Errorf("sandbox: locating the reins binary: %w", err)
	}
	backends, err := sandboxBackends(o.Getenv)
	if err != nil {
		return sandbox.Config{}, nil, err
	}
	dirs, files := permission.ProtectedNames()
	cacheRoot := userCacheDir(o.Getenv, pc.Home())
	cfg := sandbox.Config{
		WorkingDirs:       pc.WorkingDirs(),
		Home:              pc.Home(),
		CacheDir:          sandboxCacheDir(cacheRoot, pc.OriginalCwd()),
		ProbeCache:        filepathJoin(cacheRoot, "reins", "sandbox-probe.json"),
		ProtectedDirs:     dirs,
		ProtectedFiles:    files,
		ProtectedPaths:    append(pc.SettingsFiles(), pc.ProtectedPaths()...),
		AllowLocalBinding: sb.AllowLocalBinding,
		Helper:            helper,
		Backends:          backends,
	}
	toPaths := func(es []settings.SandboxEntry) []sandbox.Path {
		var out []sandbox.Path
		for _, e := range es {
			out = append(out, sandbox.Path{Path: e.Path, Origin: e.Origin})
		}
		return out
	}
	cfg.AllowWrite = toPaths(sb.AllowWrite)
	cfg.DenyWrite = toPaths(sb.DenyWrite)
	cfg.DenyRead = toPaths(sb.DenyRead)
	for _, e := range sb.AllowUnixSockets {
		cfg.AllowUnixSockets = append(cfg.AllowUnixSockets, e.Path)
	}
	for _, e := range sb.AllowedDomains {
		cfg.AllowedDomains = append(cfg.AllowedDomains, e.Value)
	}
	// WebFetch's domain rules speak for the network too, as in Claude Code.
	for _, b := range []permission.Behavior{permission.Allow, permission.Deny} {
		for _, r := range pc.ContentRules(b, "WebFetch") {
			d, ok := strings.CutPrefix(r.Value.Content, "domain:")
			if !ok || settings.CheckDomainPattern(d) != "" {
				continue
			}
			if b == permission.Allow {
				cfg.AllowedDomains = append(cfg.AllowedDomains, d)
			} else {
				cfg.DeniedDomains = append(cfg.DeniedDomains, d)
			}
		}
	}
	if s.ConfigDir != "" {
		cfg.QuarantineDir = filepath.Join(s.ConfigDir, "quarantine")
	}
	paths, notes := readDeniedPaths(ctx, pc)
	cfg.DenyRead = append(cfg.DenyRead, paths...)
	cfg.DenyRead = append(cfg.DenyRead, credentialStores(ctx, pc)...)
	return cfg, notes, nil
}

// credentialStores are the places in the home folder where tools keep credentials, which no
// sandboxed command may read whatever the rules say: the folders and files of ssh, the
// clouds' and GitHub's command-line tools, Docker, netrc and git's credential store, cargo's
// registry token, macOS's keychains, and what the secret-file patterns
// (permission.DefaultSecretFiles and permissions.secretFiles) name in the home folder: those anchored there, and the unanchored
// ones (.npmrc, .pgpass, *.pem, …) matched against its top entries. Below the working
// directories the patterns are not walked for: a project's own .env or test certificates stay
// readable to its builds and tests (the Read deny rules, walked by readDeniedPaths, say
// otherwise where the user wants).
func credentialStores(ctx context.Context, pc *permission.Context) []sandbox.Path {
	home := pc.Home()
	if home == "" {
		return nil
	}
	const origin = "credential store (built in)"
	var out []sandbox.Path
	seen := map[string]bool{}
	add := func(p, origin string) {
		if !seen[p] && exists(p) {
			seen[p] = true
			out = append(out, sandbox.Path{Path: p, Origin: origin})
		}
	}
	for _, rel := range []string{".ssh", ".aws", ".config/gcloud", ".config/gh", ".docker/config.json", ".netrc", ".git-credentials",
		".azure", ".kube/config", ".gnupg", ".cargo/credentials", ".cargo/credentials.toml",
		// macOS's keychain files (Seatbelt refuses the keychain's servers too).
		"Library/Keychains"} {
		add(filepath.Join(home, rel), origin)
	}
	for _, sf := range pc.SecretFiles() {
		origin := "secret file " + sf.Pattern
		if base := secretBase(sf.Pattern, home); base != "" {
			add(base, origin)
		}
	}
	entries, _ := os.ReadDir(home)
	for _, e := range entries {
		p := filepath.Join(home, e.Name())
		if sf, ok := pc.SecretFile(ctx, p); ok {
			add(p, "secret file "+sf.Pattern)
		}
	}
	return out
}

// secretBase is the path a home-anchored or absolute secret-file pattern names, down to its
// first component with a wildcard ("~/.config/gcloud/**" names ~/.config/gcloud); "" for an
// unanchored pattern or one whose literal part is the home folder or the root itself.
func secretBase(pattern, home string) string {
	var base, rest string
	switch {
	case strings.HasPrefix(pattern, "~/"):
		base, rest = home, pattern[2:]
	case strings.HasPrefix(pattern, "//"):
		base, rest = "/", pattern[2:]
	default:
		return ""
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == "" || strings.ContainsAny(seg, "*?[{\\") {
			break
		}
		base = filepath.Join(base, seg)
	}
	if base == home || base == "/" {
		return ""
	}
	return base
}

// userCacheDir is XDG_CACHE_HOME, or ~/.cache.
func userCacheDir(getenv func(string) string, home string) string {
	if d := getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return d
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".cache")
}

// sandboxCacheDir is the folder of the toolchains' caches of sandboxed commands started in
// cwd: one per project, so that a command in one project cannot poison the builds of another.
func sandboxCacheDir(cacheRoot, cwd string) string {
	if cacheRoot == "" || cwd == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(cwd))
	name := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, filepath.Base(cwd))
	return filepath.Join(cacheRoot, "reins", "sandbox", name+"-"+hex.EncodeToString(sum[:6]))
}

func filepathJoin(root string, elem ...string) string {
	if root == "" {
		return ""
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// readDeniedPaths finds the existing paths the Read deny rules cover, for the sandbox to hide:
// it walks each rule's anchor folder (the working directories for patterns that match at any
// depth) and asks the permission context, so the patterns mean exactly what they mean to the
// Read tool. Files created later are not covered; the notes say where the walk stopped short.
func readDeniedPaths(ctx context.Context, pc *permission.Context) ([]sandbox.Path, []string) {
	var out []sandbox.Path
	var notes []string
	seen := map[string]bool{}
	for _, r := range pc.ContentRules(permission.Deny, "Read") {
		var bases []string
		if b := patternBase(r, pc); b != "" {
			bases = []string{b}
		} else {
			bases = pc.WorkingDirs()
		}
		walked := 0
		for _, base := range bases {
			_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if walked++; walked > maxReadDenyWalk {
					return fs.SkipAll
				}
				if pc.CheckRead(ctx, p).Behavior != permission.Deny {
					return nil
				}
				if !seen[p] {
					seen[p] = true
					out = append(out, sandbox.Path{Path: p, Origin: r.Describe()})
				}
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			})
		}
		if walked > maxReadDenyWalk {
			notes = append(notes, fmt.Sprintf("Read deny rule %s: only the first %d entries under %s were checked for the sandbox", r.Describe(), maxReadDenyWalk, strings.Join(bases, ", ")))
		}
	}
	return out, notes
}

// patternBase is the folder a Read rule's pattern is anchored in, down to its first component
// with a wildcard; "" for patterns that match at any depth below the working directory.
func patternBase(r *permission.Rule, pc *permission.Context) string {
	c := r.Value.Content
	var base string
	switch {
	case strings.HasPrefix(c, "//"):
		base, c = "/", c[2:]
	case c == "~" || strings.HasPrefix(c, "~/"):
		base, c = pc.Home(), strings.TrimPrefix(strings.TrimPrefix(c, "~"), "/")
	case strings.HasPrefix(c, "/"):
		base, c = r.Root, c[1:]
		if base == "" {
			base = pc.OriginalCwd()
		}
	default:
		return ""
	}
	for _, seg := range strings.Split(c, "/") {
		if seg == "" || strings.ContainsAny(seg, "*?[{\\") {
			break
		}
		base = filepath.Join(base, seg)
	}
	return base
}

// Start builds the session's sandbox and returns it with the permission context the
// session decides and runs its commands in:
//
//   - sandbox.enabled is false in the settings: no sandbox, pc.
//   - a backend works: the sandbox, pc.
//   - no backend works and the sandbox is on only by default (no file set sandbox.enabled):
//     no sandbox, and pc with the sandbox off — commands run unconfined, as before the
//     default — said once through warn.
//   - no backend works and a settings file set sandbox.enabled to true: the error; reins never
//     falls back to running commands unconfined where the settings promised otherwise.
//
// warn also gets what could not be carried over completely.
func Start(ctx context.Context, s Settings, pc *permission.Context, o Options, warn func(string)) (*sandbox.Sandbox, *permission.Context, error) {
	if !pc.Sandbox().Enabled {
		return nil, pc, nil
	}
	cfg, notes, err := Config(ctx, s, pc, o)
	if err != nil {
		return nil, nil, err
	}
	cfg.AskHost = o.AskHost
	cfg.OnStart = func() { built.Mark(built.Sandbox) }
	sb, err := sandbox.New(ctx, cfg)
	if errors.Is(err, sandbox.ErrUnavailable) && s.onByDefault() {
		warn(offNotice(err))
		return nil, Off(pc), nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, n := range notes {
		warn(n)
	}
	return sb, pc, nil
}

// onByDefault reports whether the sandbox is on only because nothing turned it off: no
// settings file set sandbox.enabled.
func (s Settings) onByDefault() bool {
	return s.Context.Sandbox().Enabled && s.EnabledAt() == ""
}

// EnabledAt is where the sandbox.enabled that decides was written (file:line:col), "" when
// no settings file sets it.
func (s Settings) EnabledAt() string {
	sb, _ := s.Loaded.Sandbox(s.Trusted)
	return sb.EnabledOrigin
}

// Off is pc with the sandbox off: what a session whose default sandbox found no backend
// decides and runs in, so that no command is refused for want of a sandbox and no escape asks.
func Off(pc *permission.Context) *permission.Context {
	p := pc.Sandbox()
	p.Enabled = false
	return pc.WithSandbox(p)
}

// offNotice is what a session says once when its default sandbox cannot run.
func offNotice(err error) string {
	return fmt.Sprintf("Bash commands run without the OS sandbox this session: %v. "+
		"(It is on by default where a backend works; sandbox.enabled: false in your user settings silences this, true makes it an error.)", err)
}

// DomainCovers matches a domain entry against a host as the sandbox's proxy does.
func DomainCovers(domain, host string) bool {
	return proxy.Matcher([]string{domain}, nil)(host)
}
