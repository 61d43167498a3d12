package cmdutil

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strings"
)

// BuildVersion describes the running binary from the build information the Go toolchain
// embeds.
func BuildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return VersionText(bi)
}

// VersionText is buildVersion for bi (nil: none embedded): the module version (a tag, a
// pseudo-version, or "(devel)"), the VCS commit with its time and whether the tree had local
// changes, and the Go version. The go command stamps the commit only in a clone whose .git is
// a folder, without -buildvcs=false: not in a git worktree (go.dev/issue/58218).
func VersionText(bi *debug.BuildInfo) string {
	version, commit, when, modified, goVersion := "(devel)", "", "", false, "unknown"
	if bi != nil {
		version = cmp.Or(bi.Main.Version, version)
		goVersion = cmp.Or(bi.GoVersion, goVersion)
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "reins version %s\n", strings.TrimPrefix(version, "v"))
	if commit == "" {
		b.WriteString("commit unknown (built without version control information)\n")
	} else {
		b.WriteString("commit " + commit)
		if when != "" {
			b.WriteString(" of " + when)
		}
		if modified {
			b.WriteString(" (with local changes)")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "built with %s\n", goVersion)
	return b.String()
}
