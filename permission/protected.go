package permission

import (
	"path/filepath"
	"slices"
	"strings"
)

// protectedDirs are folders whose contents configure tools that run code (git hooks, editor
// tasks, agent settings). A write anywhere under a path segment of this name asks, in every
// mode. Compared lower-cased.
var protectedDirs = map[string]bool{
	".git": true, ".vscode": true, ".idea": true, ".claude": true, ".reins": true,
	".husky": true, ".cargo": true, ".devcontainer": true, ".yarn": true, ".mvn": true,
}

// protectedFiles are files that run code or change how tools behave when they are read by a
// shell, git, a package manager or an agent. Compared lower-cased by base name.
var protectedFiles = map[string]bool{
	".gitconfig": true, ".gitmodules": true, ".bashrc": true, ".bash_profile": true, ".zshrc": true,
	".zprofile": true, ".profile": true, ".ripgreprc": true, ".mcp.json": true, ".claude.json": true,
	".reins.json": true, ".bash_login": true, ".bash_aliases": true, ".bash_logout": true, ".zshenv": true,
	".zlogin": true, ".zlogout": true, ".envrc": true, ".npmrc": true, ".yarnrc": true, ".yarnrc.yml": true,
	".pnp.cjs": true, ".pnp.loader.mjs": true, ".pnpmfile.cjs": true, "bunfig.toml": true, ".bunfig.toml": true,
	".bazelrc": true, ".bazelversion": true, ".bazeliskrc": true, ".pre-commit-config.yaml": true,
	"lefthook.yml": true, "lefthook.yaml": true, ".lefthook.yml": true, ".lefthook.yaml": true,
	"gradle-wrapper.properties": true, "maven-wrapper.properties": true, ".devcontainer.json": true,
	"pyrightconfig.json": true,
}

// protectedHome are the paths in the home folder that run code at login, at a shell's or a
// tool's start or on a schedule, or that grant access to the machine, as surely as .bashrc: a
// write to one, or anywhere below one that is a folder, asks in every mode. Relative to the
// home folder, lower-cased. docs/security.md lists why each is here.
var protectedHome = []string{
	// Access: authorized_keys, config (ProxyCommand, LocalCommand, Include), rc, environment.
	".ssh",
	// Run at login or on a schedule: systemd user units and timers, XDG autostart, the session's
	// environment (PATH, LD_PRELOAD), PAM's, X session scripts, macOS login agents.
	".config/systemd", ".config/autostart", ".config/environment.d", ".pam_environment",
	".xprofile", ".xinitrc", ".xsession", ".xsessionrc", "library/launchagents",
	// Read by a shell at start: ~/.bashrc.d (sourced by several distributions' .bashrc), fish.
	".bashrc.d", ".config/fish",
	// On PATH before the system's folders: a command of the same name wins.
	".local/bin", "bin",
	// Run when a program starts or opens: desktop entries' Exec, editors' and tmux's rc files.
	".local/share/applications", ".vimrc", ".exrc", ".vim", ".config/nvim", ".tmux.conf",
	// Commands credentials are fetched with: credential_process, kubeconfig exec plugins,
	// docker credential helpers.
	".aws", ".kube/config", ".docker/config.json",
	// Where packages and downloads come from (an index URL, a proxy, an upload).
	".config/pip", ".pip", ".curlrc", ".wgetrc",
}

// protectedHomePath says why writing f (lower-cased, slashes) in the home folder needs a
// person's approval, or "".
func (c *Context) protectedHomePath(lower string) string {
	for _, h := range c.homeForms {
		rel, ok := strings.CutPrefix(lower, strings.TrimSuffix(filepath.ToSlash(h), "/")+"/")
		if !ok {
			continue
		}
		for _, p := range protectedHome {
			if rel == p || strings.HasPrefix(rel, p+"/") {
				return "~/" + p + " is a protected path of the home folder (it runs code or grants access)"
			}
		}
		if pythonStartup(rel) {
			return "~/" + rel + " is a protected path of the home folder: Python runs it at every start (a .pth or customize file of the user site-packages)"
		}
	}
	return ""
}

// pythonStartup reports a file of the user's site-packages that Python runs at start: a .pth
// file (its import lines run) or usercustomize.py / sitecustomize.py.
func pythonStartup(rel string) bool {
	segs := strings.Split(rel, "/")
	if len(segs) != 5 || segs[0] != ".local" || segs[1] != "lib" || !strings.HasPrefix(segs[2], "python") || segs[3] != "site-packages" {
		return false
	}
	name := segs[4]
	return strings.HasSuffix(name, ".pth") || name == "usercustomize.py" || name == "sitecustomize.py"
}

// ProtectedHomePaths are the paths in the home folder (relative to it) whose writes ask in
// every mode, for the sandbox to keep read-only too.
func ProtectedHomePaths() []string { return slices.Clone(protectedHome) }

// protectedPath says why writing the absolute path f needs a person's approval, or "".
func (c *Context) protectedPath(f string) string {
	return c.protectedPathOn(HostSystem(), f)
}

// protectedPathOn is protectedPath with sys's naming: on Windows ".git::$DATA" and ".envrc."
// are .git and .envrc.
func (c *Context) protectedPathOn(sys *PathSystem, f string) string {
	lower := strings.ToLower(sys.Canonical(f))
	segs := strings.Split(strings.Trim(lower, "/"), "/")
	for i, s := range segs {
		if !protectedDirs[s] {
			if s == ".config" && i+1 < len(segs) && segs[i+1] == "git" {
				return "inside .config/git, git's configuration folder"
			}
			continue
		}
		if (s == ".claude" || s == ".reins") && i+1 < len(segs) && segs[i+1] == "worktrees" {
			continue
		}
		return "inside " + s + ", a protected folder"
	}
	if len(segs) > 0 && protectedFiles[segs[len(segs)-1]] {
		return segs[len(segs)-1] + " is a protected file"
	}
	if why := c.protectedHomePath(lower); why != "" {
		return why
	}
	for _, sf := range c.settingsFiles {
		if strings.EqualFold(filepath.Clean(sf), filepath.Clean(f)) {
			return "a settings file of this session"
		}
	}
	return c.extraProtected(filepath.Clean(f))
}

// hasShortName is the regexp `~\d` (a Windows 8.3 short name such as PROGRA~1), written out
// because every path check asks it; TestSuspiciousMatchers holds it to the regexp.
func hasShortName(p string) bool {
	for i := strings.IndexByte(p, '~'); i >= 0 && i+1 < len(p); {
		if isDigit(p[i+1]) {
			return true
		}
		j := strings.IndexByte(p[i+1:], '~')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// hasDeviceSuffix is the regexp `(?i)\.(con|prn|aux|nul|com\d|lpt\d)$` (a Windows device
// name), written out like hasShortName. The suffix has no ".", so the last "." starts it;
// none of its letters has a non-ASCII case fold, so EqualFold agrees with (?i).
func hasDeviceSuffix(p string) bool {
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return false
	}
	switch ext := p[i+1:]; len(ext) {
	case 3:
		for _, d := range [...]string{"con", "prn", "aux", "nul"} {
			if strings.EqualFold(ext, d) {
				return true
			}
		}
	case 4:
		return isDigit(ext[3]) && (strings.EqualFold(ext[:3], "com") || strings.EqualFold(ext[:3], "lpt"))
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// SuspiciousPath says why CheckRead and CheckWrite refuse the path p before they look at any
// rule or file: it is suspiciousPath, for callers that can skip work whose only outcome would
// be that refusal.
func SuspiciousPath(p string) string { return suspiciousPath(p) }

// suspiciousPath says why a path as written looks like it is trying to reach somewhere other
// than it seems (UNC shares, Windows device and 8.3 names, "..." components, trailing dots),
// or "". Such paths always need a person's approval, and no file-system call is made for them.
func suspiciousPath(p string) string {
	if why := HostSystem().Suspicious(p); why != "" {
		return why
	}
	if why := suspiciousWhole(p); why != "" {
		return why
	}
	// The segments one after the other, without an iterator: every path check asks this.
	for rest := filepath.ToSlash(p); rest != ""; {
		seg := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if why := suspiciousSegment(seg); why != "" {
			return why
		}
	}
	return ""
}

// suspiciousWhole is what suspiciousPath finds in the path as a whole: device and UNC
// prefixes, 8.3 short names, device names, bidi controls.
func suspiciousWhole(p string) string {
	switch {
	case strings.HasPrefix(p, `\\?\`), strings.HasPrefix(p, `\\.\`), strings.HasPrefix(p, "//?/"), strings.HasPrefix(p, "//./"):
		return "a Windows device path prefix"
	case strings.HasPrefix(p, `\\`), strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///"):
		return "a UNC network path"
	case hasShortName(p):
		return "a Windows 8.3 short name"
	case hasDeviceSuffix(p):
		return "a Windows device name"
	}
	for _, r := range p {
		if isBidiControl(r) {
			return "a bidirectional text control character"
		}
	}
	return ""
}

// suspiciousSegment says why one element of a path is suspicious, or "".
func suspiciousSegment(seg string) string {
	if seg == "" || seg == "." || seg == ".." {
		return ""
	}
	if strings.Trim(seg, ".") == "" {
		return `a "..." path component`
	}
	if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
		return "a path component ending in a dot or space"
	}
	return ""
}

// isBidiControl reports runes that reorder how text is displayed, so a path shown to a person
// could read differently from the path used.
func isBidiControl(r rune) bool {
	return r == '\u200e' || r == '\u200f' || r == '\u061c' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}
