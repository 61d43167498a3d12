package settings

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/reinsdev/reins/boundedfile"
)

// MaxFileSize is the largest settings or trust file Reins reads. A settings file is a few
// kilobytes; anything near this size is a mistake or an attack (a cloned repository whose
// .claude/settings.json is 50 MB of rules costs seconds and gigabytes to load), and a bound
// keeps every read short.
const MaxFileSize = 4 << 20

// fileLimits bound every settings, trust and persisted file.
var fileLimits = boundedfile.Limits{MaxBytes: MaxFileSize, Kind: "settings file"}

// readBounded reads a settings file only when it is a regular file (after symlinks) of at most
// MaxFileSize bytes; see package boundedfile. /dev/urandom, a FIFO, a socket or a folder is a
// [*NotRegularError] naming what it is. Loading takes no context: a read of at most 4 MiB
// of a regular file is short.
func readBounded(name string) ([]byte, error) {
	return boundedfile.Read(context.Background(), name, fileLimits)
}

// ReadFile reads a settings document named on the command line (the proposal of reins policy
// replay, a bundle to sign) the way Load reads its files: only a regular file, opened without
// blocking (a FIFO is an error, never a wait), of at most MaxFileSize bytes (/dev/zero is an
// error, never a read without end), and ended by ctx.
func ReadFile(ctx context.Context, name string) ([]byte, error) {
	return boundedfile.Read(ctx, name, fileLimits)
}

// NotRegularError is a settings path that is not a regular file: a device, FIFO, socket or
// folder. Reins refuses it rather than read from it without end.
type NotRegularError = boundedfile.NotRegularError

// TooLargeError is a settings file over MaxFileSize.
type TooLargeError = boundedfile.TooLargeError

// danglingSymlink reports whether path is a symlink whose target does not exist: a Stat that
// says "not exist" for a path that Lstat finds.
func danglingSymlink(path string) (target string, ok bool) {
	info, err := os.Lstat(path)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	t, _ := os.Readlink(path)
	return t, true
}
