package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/tool"
)

// A tool session keeps the file state of `reins tool run` between runs, so a Read in one run
// lets an Edit in the next one go ahead, as it would in one agent session. It lives in
// <config dir>/tool-sessions/<ID>.json.

var sessionIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// toolSessionPath is the file of session id.
func toolSessionPath(f *cmdutil.Factory, cwd, id string) (string, error) {
	if !sessionIDRE().MatchString(id) {
		return "", cmdutil.UsageErrorf("--session %q: use letters, digits, '.', '_' and '-' (at most 128), starting with a letter or digit", id)
	}
	dir := cmdutil.SettingsOptions(f, cwd).ConfigDir
	if dir == "" {
		return "", errors.New("--session: no config folder to keep the session in (set HOME or REINS_CONFIG_DIR)")
	}
	return filepath.Join(dir, "tool-sessions", id+".json"), nil
}

// maxToolSessionBytes bounds a tool session file: it holds a path, a digest and times for
// each file read, a few hundred bytes each.
const maxToolSessionBytes = 64 << 20

// loadToolSession returns the file state of session id (empty for a new session).
func loadToolSession(path string) (*tool.FileState, error) {
	fs := tool.NewFileState()
	b, err := boundedfile.Read(context.Background(), path, boundedfile.Limits{MaxBytes: maxToolSessionBytes, Kind: "tool session file"})
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fs, nil
	case err != nil:
		return nil, fmt.Errorf("reading tool session: %w", err)
	}
	if err := json.Unmarshal(b, fs); err != nil {
		return nil, fmt.Errorf("tool session %s: %w", path, err)
	}
	return fs, nil
}

// saveToolSession writes the file state; a rename makes the write all or nothing.
func saveToolSession(path string, fs *tool.FileState) error {
	b, err := json.Marshal(fs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("saving tool session: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".session-*")
	if err != nil {
		return fmt.Errorf("saving tool session: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("saving tool session: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving tool session: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("saving tool session: %w", err)
	}
	return nil
}
