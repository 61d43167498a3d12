package seatbelt

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/reinsdev/reins/sandbox"
)

// DefaultPath is where macOS keeps sandbox-exec.
const DefaultPath = "/usr/bin/sandbox-exec"

// Backend confines commands with sandbox-exec and a profile from [Profile].
type Backend struct {
	// Path is the sandbox-exec binary; "" is [DefaultPath].
	Path string
}

func (b *Backend) path() string {
	if b.Path == "" {
		return DefaultPath
	}
	return b.Path
}

// Name is "seatbelt".
func (b *Backend) Name() string { return "seatbelt" }

// Probe runs /usr/bin/true under the spec's own profile, so that a profile the kernel refuses
// is found before any command depends on it.
func (b *Backend) Probe(ctx context.Context, spec *sandbox.Spec) error {
	if _, err := exec.LookPath(b.path()); err != nil {
		return fmt.Errorf("seatbelt: %w", err)
	}
	out, err := exec.CommandContext(ctx, b.path(), "-p", Profile(spec), "--", "/usr/bin/true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("seatbelt: sandbox-exec refused the profile: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Wrap rewrites cmd to run under sandbox-exec with spec's profile. Nothing needs cleaning
// up afterwards: the profile names paths, so no placeholder is made.
func (b *Backend) Wrap(cmd *exec.Cmd, spec *sandbox.Spec) (func(), error) {
	if cmd.Path == "" {
		return nil, fmt.Errorf("seatbelt: the command has no program")
	}
	args := []string{"sandbox-exec", "-p", Profile(spec), "--", cmd.Path}
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args = b.path(), args
	return func() {}, nil
}

// Describe says how the spec is enforced and what Seatbelt cannot.
func (b *Backend) Describe(spec *sandbox.Spec) []string {
	lines := []string{
		"seatbelt: sandbox-exec with a generated profile: deny by default, read all but the read-denied paths, write only the write roots",
		"protected paths and the read-denied paths inside write roots are refused writes by name, in any case, whether or not they exist (no placeholders); the folders above them cannot be renamed",
		"/tmp: read-only (the system's shared /tmp cannot be replaced); TMPDIR is the session's temporary folder, and the toolchains' caches are the session's own",
		fmt.Sprintf("network: TCP only to localhost:%d (the proxy); DNS only through it", spec.ProxyPort),
	}
	if len(spec.UnixSockets) == 0 {
		lines = append(lines, "Unix sockets: refused (connecting and binding)")
	} else {
		lines = append(lines, fmt.Sprintf("Unix sockets: connecting only to the %d listed; binding refused", len(spec.UnixSockets)))
	}
	if spec.LocalBinding {
		lines = append(lines, "local binding: allowed on localhost, any port")
	} else {
		lines = append(lines, "local binding: refused")
	}
	return append(lines,
		fmt.Sprintf("Mach services: only %d named ones (logging, user lookup, certificate checks); not LaunchServices, the pasteboard or the keychain", len(machServices)),
		"not enforced: a hard link made to a read-denied file inside a write root is read under its new name; a command's background processes outlive it (the check after each command restores protected paths)",
	)
}
