//go:build linux && !amd64 && !arm64

package confine

// No filter is built for other architectures; the helpers then refuse to run the command.
const (
	auditArch       = 0
	sysSocket       = 0
	sysSeccomp      = 0
	sysIoUringSetup = 0
)
