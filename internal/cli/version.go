package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// buildVersion describes the running binary from the build information the Go toolchain
// embeds: the module version (a tag, a pseudo-version, or "(devel)"), the VCS commit and
// whether the tree had local changes, and the Go version.
func buildVersion() string {
	version, commit, modified, goVersion := "(devel)", "", false, ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "reins version %s\n", strings.TrimPrefix(version, "v"))
	switch {
	case commit == "":
		b.WriteString("commit unknown (built without version control information)\n")
	case modified:
		fmt.Fprintf(&b, "commit %s (with local changes)\n", commit)
	default:
		fmt.Fprintf(&b, "commit %s\n", commit)
	}
	fmt.Fprintf(&b, "built with %s\n", goVersion)
	return b.String()
}

// newCmdVersion is `reins version`, the same text as `reins --version`.
func newCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version of this reins",
		Args:    cobra.NoArgs,
		Example: "  reins version\n  reins --version",
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(f.Out, buildVersion())
			return err
		},
	}
}
