package files

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A file with several hard links is written in place (writeInPlace), which alone would leave
// a mix of old and new content when the writer dies half-way. A roll-forward journal closes
// that: the new content is first written whole to a journal file in a folder of Reins' own,
// outside the project, and synced; then the file is overwritten; then the journal is removed.
// A journal left behind by a killed writer holds content that is whole, so the next write to
// that file (writeTarget) writes it again in place first: the file ends old or new, never
// mixed. Journals are named by the file's device and inode, which every name of it shares.

// journal is the folder journals live in: the user's cache folder, or the temporary folder.
func (o Options) journal() string {
	if o.journalDir != "" {
		return o.journalDir
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "reins", "journal")
	}
	return filepath.Join(os.TempDir(), "reins-journal-"+strconv.Itoa(os.Getuid()))
}

func journalName(dir, path string, fi os.FileInfo) (string, bool) {
	id, ok := fileIdentity(path, fi)
	if !ok {
		return "", false
	}
	return filepath.Join(dir, fmt.Sprintf("%d-%d.journal", id.dev, id.ino)), true
}

// journalHeader starts a journal: the path written, for the person who finds one, then the
// content.
const journalHeader = "reins in-place write journal\n"

// writeJournal records data as the content path is about to get, whole and synced, and
// returns the journal's name. It is written under a temporary name and renamed, so a journal
// that exists is complete.
func writeJournal(dir, path string, fi os.FileInfo, data []byte) (string, error) {
	name, ok := journalName(dir, path, fi)
	if !ok {
		return "", fmt.Errorf("no inode for %s", path)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the journal folder %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "new-*.tmp")
	if err != nil {
		return "", fmt.Errorf("creating a journal for %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.WriteString(journalHeader + path + "\n")
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("writing the journal for %s: %w", path, err)
	}
	syncDir(dir)
	return name, nil
}

// readJournal returns the content a journal holds.
func readJournal(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(b, []byte(journalHeader))
	if !ok {
		return nil, errors.New("not a journal")
	}
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		return nil, errors.New("journal without a path line")
	}
	return rest[i+1:], nil
}

// finishJournal completes an in-place write a killed writer left half-done on the file at
// path: the journal's content is written in place again and the journal removed. No journal
// is no work.
func finishJournal(dir, path string, fi os.FileInfo) error {
	name, ok := journalName(dir, path, fi)
	if !ok {
		return nil
	}
	data, err := readJournal(name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("an interrupted write to %s left the journal %s, which cannot be read: %w", path, name, err)
	}
	if err := overwrite(path, data, Options{}); err != nil {
		return fmt.Errorf("completing an interrupted write to %s from %s: %w", path, name, err)
	}
	return os.Remove(name)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Temporary files of writeAtomic carry the writer's process id, so a later writer can tell
// a dead writer's leftover (kill -9 between create and rename) from a live one's.

func tempPattern(base string) string {
	return "." + base + ".reins-" + strconv.Itoa(os.Getpid()) + "-*.tmp"
}

// sweepTemps removes the temporary files dead writers left in dir. A file whose writer may be
// alive (its process exists, or the name does not say) stays.
func sweepTemps(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, ".*.reins-*-*.tmp"))
	for _, n := range names {
		rest := n[strings.LastIndex(n, ".reins-")+len(".reins-"):]
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if processGone(pid) {
			os.Remove(n)
		}
	}
}
