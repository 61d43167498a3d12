package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Status says how the sandbox enforces each setting, for `reins sandbox status`.
type Status struct {
	Backend string `json:"backend"`
	// Rejected are the backends tried before it, with why they did not work.
	Rejected  []string `json:"rejected,omitempty"`
	ProxyPort int      `json:"proxyPort"`
	TempDir   string   `json:"tempDir"`
	// CacheDir holds the toolchains' caches of sandboxed commands; QuarantineDir what the
	// check after a command took out of the write roots.
	CacheDir      string `json:"cacheDir,omitempty"`
	QuarantineDir string `json:"quarantineDir"`
	// Missing are the protected paths that do not exist (the rules count them in one line).
	Missing []string     `json:"missing,omitempty"`
	Rules   []RuleStatus `json:"rules"`
	// Enforcement is the backend's own account of how it enforces the spec.
	Enforcement []string `json:"enforcement"`
}

// RuleStatus is what one setting became.
type RuleStatus struct {
	Setting string `json:"setting"`
	Value   string `json:"value"`
	Origin  string `json:"origin,omitempty"`
	Became  string `json:"became"`
}

// Status reports the backend and what each rule became.
func (s *Sandbox) Status() Status {
	_ = s.ready()
	st := Status{Backend: s.backend.Name(), Rejected: slices.Clone(s.rejects), ProxyPort: s.spec.ProxyPort, TempDir: s.cfg.TempDir,
		CacheDir: s.cfg.CacheDir, QuarantineDir: s.cfg.QuarantineDir, Missing: slices.Clone(s.spec.MustNotCreate)}
	add := func(setting, value, origin, became string) {
		st.Rules = append(st.Rules, RuleStatus{Setting: setting, Value: value, Origin: origin, Became: became})
	}
	for _, d := range s.cfg.WorkingDirs {
		add("working directory", d, "", "writable; its protected paths end up unchanged (how: the enforcement lines)")
	}
	add("session temporary directory", s.cfg.TempDir, "", "writable; TMPDIR of sandboxed commands ("+s.backendTmp()+")")
	if s.cfg.CacheDir != "" {
		add("toolchain caches", s.cfg.CacheDir, "", "writable; GOCACHE, GOMODCACHE, npm's and pip's caches, CARGO_HOME and XDG_CACHE_HOME of sandboxed commands; the host's caches are read-only (go reads the host's module cache through GOPROXY=file://)")
	}
	add("quarantine", s.cfg.QuarantineDir, "", "where the check after each command moves the protected paths a command created or changed")
	for _, p := range s.cfg.AllowWrite {
		if slices.Contains(s.spec.WriteRoots, resolve(p.Path)) {
			add("filesystem.allowWrite", p.Path, p.Origin, "writable")
		} else {
			add("filesystem.allowWrite", p.Path, p.Origin, "not applied: the path does not exist")
		}
	}
	for _, p := range s.spec.WriteDeny {
		add("protected path", p, "", "read-only")
	}
	if n := len(s.spec.MustNotCreate); n > 0 {
		add("missing protected paths", strconv.Itoa(n), "", "nothing stands in for them; one a command creates is moved to the quarantine after it (the list: --json, \"missing\")")
	}
	for _, g := range s.spec.repos {
		add("nested repository", g, "", "its hooks and config are protected like the project's")
	}
	for _, wd := range s.spec.reposCut {
		add("nested repositories", wd, "", fmt.Sprintf("searched only the first %d folders: repositories further in are neither protected nor checked when a command creates or changes one", maxRepoWalk))
	}
	for _, p := range s.cfg.DenyWrite {
		r := resolve(p.Path)
		switch {
		case slices.Contains(s.spec.WriteDeny, r) || slices.Contains(s.spec.MustNotCreate, r):
			add("filesystem.denyWrite", p.Path, p.Origin, "read-only inside a writable directory")
		case !s.underWriteRoot(r):
			add("filesystem.denyWrite", p.Path, p.Origin, "read-only (outside every writable directory)")
		default:
			add("filesystem.denyWrite", p.Path, p.Origin, "read-only (inside another protected path)")
		}
	}
	for _, p := range s.cfg.DenyRead {
		r := resolve(p.Path)
		if !exists(p.Path) {
			add("denyRead", p.Path, p.Origin, "not applied: the path does not exist now")
			continue
		}
		if slices.Contains(s.spec.ReadDeny, r) {
			add("denyRead", p.Path, p.Origin, "unreadable")
		} else {
			add("denyRead", p.Path, p.Origin, "unreadable (inside another read-denied path)")
		}
	}
	for _, d := range s.cfg.AllowedDomains {
		if sub, ok := strings.CutPrefix(d, "*."); ok {
			add("network.allowedDomains", d, "", "subdomains of "+sub+" reachable through the proxy (not "+sub+" itself)")
		} else {
			add("network.allowedDomains", d, "", "reachable through the proxy")
		}
	}
	for _, d := range s.cfg.DeniedDomains {
		add("denied domain", d, "", "refused by the proxy")
	}
	if len(s.cfg.AllowedDomains) == 0 {
		add("network", "", "", "no domain is allowed: every connection is refused")
	}
	for _, u := range s.cfg.AllowUnixSockets {
		add("network.allowUnixSockets", u, "", "reachable (see the enforcement lines)")
	}
	if s.cfg.AllowLocalBinding {
		add("network.allowLocalBinding", "true", "", "commands may listen on ports")
	}
	st.Enforcement = s.backend.Describe(&s.spec)
	return st
}

// backendTmp says what /tmp is inside.
func (s *Sandbox) backendTmp() string {
	if s.backend.Name() == "bubblewrap" && !slices.Contains(s.spec.WriteRoots, "/tmp") {
		return "mounted on /tmp inside, so /tmp is the session's own"
	}
	return "/tmp itself is the host's, read-only unless allowWrite names it"
}

func (s *Sandbox) underWriteRoot(p string) bool {
	for _, r := range s.spec.WriteRoots {
		if within(p, r) {
			return true
		}
	}
	return false
}
