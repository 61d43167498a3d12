//go:build linux && !amd64 && !arm64

package confine

// No filter is built for other architectures; the helper then refuses to run the command.
const (
	auditArch = 0
	x32Bit    = 0x40000000
)
