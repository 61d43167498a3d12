// Package seatbelt is the macOS backend of the sandbox: Apple's Seatbelt, the kernel policy
// module Claude Code's sandbox uses there. A command runs as `sandbox-exec -p PROFILE -- cmd`,
// and the profile, written in Apple's sandbox profile language (SBPL), is a pure function of
// the [sandbox.Spec] ([Profile]), golden-tested on every system.
//
// The profile denies by default and then allows:
//   - reading everything but the read-denied paths;
//   - writing only in the write roots (and the few devices every shell writes), never in the
//     protected paths inside them nor the read-denied ones (renamed, one would be read under
//     its new name), and never creating the protected paths that do not exist: Seatbelt
//     matches paths, not inodes, so a missing .git/hooks or .envrc is refused as a name,
//     without the placeholders bubblewrap and Landlock need;
//   - network only to the proxy's port on localhost (commands reach the host's loopback, so
//     [sandbox.Spec.Proxy], bubblewrap's way in, is not needed), and Unix sockets only by
//     connecting to those allowUnixSockets lists: binding one, or connecting to any other
//     (the Docker socket, ssh-agent's, mDNSResponder's), is refused; listening on a port only
//     with allowLocalBinding;
//   - starting processes, signals and process information within the sandbox, sysctl reads,
//     shared memory, and the Mach services of [machServices] alone: not LaunchServices
//     (`open` would start a program outside the sandbox), the pasteboard, or the keychain's
//     servers (the credential stores stay unreadable, as their files are: the home folder's
//     credential stores come in the spec's read-denied paths).
//
// The session's temporary folder and the toolchains' private caches are write roots like the
// project; /tmp is not (the system's shared /tmp cannot be replaced without a mount
// namespace), so TMPDIR names the session's folder, as under Landlock.
//
// macOS volumes are case-insensitive by default: a protected name is matched in any case
// (.GIT/hooks is .git/hooks), by regular expressions that fold each letter. The paths the
// spec names are real paths (symlinks resolved); /tmp, /var and /etc are links to
// /private/..., so both spellings are written where they differ.
//
// What this backend cannot do, and what cannot be run on Linux CI (sandbox-exec itself), is
// listed in docs/security.md.
package seatbelt

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/reinsdev/reins/sandbox"
)

// writableDevices are the devices any shell writes to: they hold no data.
var writableDevices = []string{"/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty", "/dev/stdout", "/dev/stderr"}

// machServices are the Mach services a command may look up: what libc and the frameworks a
// command-line program links need to start, log, look up users and check a TLS certificate.
// Every other service is refused, among them LaunchServices (com.apple.coreservices.
// launchservicesd: `open -a` would start an application outside the sandbox), the
// pasteboard (com.apple.pasteboard.1), and the keychain's servers (com.apple.SecurityServer,
// com.apple.securityd.xpc), so that a command reads no stored credential through them.
var machServices = []string{
	"com.apple.logd",                             // os_log
	"com.apple.system.logger",                    // asl, syslog(3)
	"com.apple.system.notification_center",       // notify(3): time zone, configuration changes
	"com.apple.system.opendirectoryd.libinfo",    // getpwuid(3) and getgrnam(3): shells, git, ssh
	"com.apple.system.opendirectoryd.membership", // group membership checks
	"com.apple.bsd.dirhelper",                    // confstr(3)'s per-user temporary and cache folders
	"com.apple.trustd", "com.apple.trustd.agent", // certificate evaluation (curl, git, Go's crypto/x509)
	"com.apple.lsd.mapdb", // LaunchServices' database, read-only (bundle lookups)
}

func machFilters() string {
	var b strings.Builder
	for _, m := range machServices {
		b.WriteString("\n  (global-name " + quote(m) + ")")
	}
	return b.String()
}

// aliases are macOS's symlinked top-level folders: the kernel checks the real path, a
// command may name either.
var aliases = [][2]string{{"/private/tmp", "/tmp"}, {"/private/var", "/var"}, {"/private/etc", "/etc"}}

// Profile returns the SBPL profile that confines a command to spec.
func Profile(spec *sandbox.Spec) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	section(&b, "processes: start, signal and inspect only within the sandbox",
		"(allow process-exec)",
		"(allow process-fork)",
		"(allow signal (target same-sandbox))",
		"(allow process-info* (target same-sandbox))",
		"(allow sysctl-read)",
		"(allow mach-lookup"+machFilters()+")",
		"(allow ipc-posix-shm)",
		"(allow ipc-posix-sem)",
		"(allow pseudo-tty)",
		"(allow file-ioctl)",
		"(allow user-preference-read)")
	readRules(&b, spec)
	writeRules(&b, spec)
	networkRules(&b, spec)
	return b.String()
}

func readRules(b *strings.Builder, spec *sandbox.Spec) {
	lines := []string{"(allow file-read*)"}
	if len(spec.ReadDeny) > 0 {
		lines = append(lines, "(deny file-read*"+foldedFilters(spec.ReadDeny, spec.WriteRoots)+")")
	}
	section(b, "reading: everything but the read-denied paths", lines...)
}

func writeRules(b *strings.Builder, spec *sandbox.Spec) {
	var devs []string
	for _, d := range writableDevices {
		devs = append(devs, "(literal "+quote(d)+")")
	}
	lines := []string{"(allow file-write* " + strings.Join(devs, " ") + ` (regex #"^/dev/ttys[0-9]+$"))`}
	if len(spec.WriteRoots) > 0 {
		lines = append(lines, "(allow file-write*"+rootFilters(spec)+")")
	}
	// Later rules win: the protected paths are denied after the roots are allowed. So are
	// the read-denied paths inside a root: Seatbelt checks the name a file is opened by, so a
	// .env renamed to another name would be read under it.
	deny := slices.Concat(spec.WriteDeny, spec.MustNotCreate)
	for _, p := range spec.ReadDeny {
		if rootOf(p, spec.WriteRoots) != "" {
			deny = append(deny, p)
		}
	}
	if len(deny) > 0 {
		lines = append(lines, "(deny file-write*"+foldedFilters(deny, spec.WriteRoots)+")")
		// A rule on .git/hooks says nothing of .git: renaming the folder away, filling it
		// and renaming it back would give the repository new hooks. The folders between a
		// root and a protected path cannot be renamed or removed.
		if anc := ancestors(deny, spec.WriteRoots); len(anc) > 0 {
			lines = append(lines, "(deny file-write-unlink"+anc+")")
		}
	}
	section(b, "writing: the write roots, never their protected paths (existing or not)", lines...)
}

func networkRules(b *strings.Builder, spec *sandbox.Spec) {
	var lines []string
	if spec.ProxyPort > 0 {
		lines = append(lines, fmt.Sprintf(`(allow network-outbound (remote ip "localhost:%d"))`, spec.ProxyPort))
	}
	// A Unix socket is reached by its path; with (deny default) every one not listed, and
	// every bind of one, stays refused.
	for _, s := range spec.UnixSockets {
		for _, p := range spellings(s) {
			lines = append(lines, "(allow network-outbound (remote unix-socket (path-literal "+quote(p)+")))")
		}
	}
	if spec.LocalBinding {
		lines = append(lines,
			`(allow network-bind (local ip "localhost:*"))`,
			`(allow network-inbound (local ip "localhost:*"))`)
	}
	if len(lines) == 0 {
		lines = []string{"; none"}
	}
	section(b, "network: only the proxy on localhost, and connecting to the allowed Unix sockets", lines...)
}

func section(b *strings.Builder, title string, lines ...string) {
	fmt.Fprintf(b, "\n; %s\n", title)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// rootFilters is one (subpath …) per write root and spelling; each covers what lies below
// it. The session's temporary folder is marked: it is TMPDIR, and nothing in it is protected.
func rootFilters(spec *sandbox.Spec) string {
	var b strings.Builder
	for _, p := range spec.WriteRoots {
		if p == spec.TempDir {
			// A comment ends at the line's end: it goes above the filters, never after the
			// last one, which the closing parenthesis follows.
			b.WriteString("\n  ; the session's temporary folder (TMPDIR)")
		}
		for _, s := range spellings(p) {
			b.WriteString("\n  (subpath " + quote(s) + ")")
		}
	}
	return b.String()
}

// foldedFilters matches each path and everything below it, with the part of it below the
// write root that holds it in any case: the volume folds case, so .GIT/hooks names
// .git/hooks, and a new .ENVRC is the .envrc a later shell reads.
func foldedFilters(paths, roots []string) string {
	var b strings.Builder
	for _, p := range paths {
		for _, s := range spellings(p) {
			b.WriteString("\n  (regex #\"" + foldedRegex(s, rootOf(s, roots)) + "\")")
		}
	}
	return b.String()
}

// ancestors matches, exactly and in any case, each folder strictly between a path's write root
// and the path.
func ancestors(paths, roots []string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, p := range paths {
		for _, s := range spellings(p) {
			root := rootOf(s, roots)
			if root == "" {
				continue
			}
			for d := parent(s); len(d) > len(root); d = parent(d) {
				if !seen[d] {
					seen[d] = true
					b.WriteString("\n  (regex #\"" + strings.TrimSuffix(foldedRegex(d, root), "(/.*)?$") + "$\")")
				}
			}
		}
	}
	return b.String()
}

func parent(p string) string { return p[:max(strings.LastIndexByte(p, '/'), 0)] }

// rootOf is the longest spelling of a root that p lies in, "" for none.
func rootOf(p string, roots []string) string {
	best := ""
	for _, r := range roots {
		for _, s := range spellings(r) {
			if (p == s || strings.HasPrefix(p, s+"/")) && len(s) > len(best) {
				best = s
			}
		}
	}
	return best
}

// foldedRegex matches p and what is below it, the part after root in any case.
func foldedRegex(p, root string) string {
	var b strings.Builder
	b.WriteString("^")
	b.WriteString(sbplRegexQuote(root))
	for _, r := range p[len(root):] {
		lo, up := strings.ToLower(string(r)), strings.ToUpper(string(r))
		if lo != up {
			b.WriteString("[" + lo + up + "]")
		} else {
			b.WriteString(sbplRegexQuote(string(r)))
		}
	}
	b.WriteString("(/.*)?$")
	return b.String()
}

// sbplRegexQuote escapes s for a regular expression inside an SBPL #"…" literal, which
// passes backslashes through to the regular expression. A double quote cannot appear in the
// literal: it becomes "." (any character), which only widens what is denied.
func sbplRegexQuote(s string) string {
	return strings.ReplaceAll(regexp.QuoteMeta(s), `"`, ".")
}

// spellings are p and, when p lies under one of macOS's /private links, its other name.
func spellings(p string) []string {
	out := []string{p}
	for _, a := range aliases {
		real, link := a[0], a[1]
		switch {
		case p == real || strings.HasPrefix(p, real+"/"):
			out = append(out, link+p[len(real):])
		case p == link || strings.HasPrefix(p, link+"/"):
			out = append(out, real+p[len(link):])
		}
	}
	return out
}

// quote is an SBPL string literal.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
