package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Default limits: a file larger than a typical source file by far is not worth keeping, and
// the store of one session stays well below a disk's free space.
const (
	DefaultMaxFileBytes  int64 = 16 << 20
	DefaultMaxTotalBytes int64 = 1 << 30
	// DefaultMaxScanFiles bounds a scan: a session started in a home folder must not read
	// all of it before a command.
	DefaultMaxScanFiles = 200_000
)

// Limits bound what the store keeps. Zero means the default.
type Limits struct {
	// MaxFileBytes: a larger file is not captured (Skipped, "too large").
	MaxFileBytes int64
	// MaxTotalBytes: once the blobs reach it, no new content is captured (Skipped, "store full").
	MaxTotalBytes int64
	// MaxScanFiles: a scan that meets more files fails (the change goes ahead, recorded as
	// not captured).
	MaxScanFiles int
}

func (l Limits) file() int64  { return orDefault(l.MaxFileBytes, DefaultMaxFileBytes) }
func (l Limits) total() int64 { return orDefault(l.MaxTotalBytes, DefaultMaxTotalBytes) }
func (l Limits) scan() int    { return int(orDefault(int64(l.MaxScanFiles), DefaultMaxScanFiles)) }

func orDefault(v, d int64) int64 {
	if v <= 0 {
		return d
	}
	return v
}

// State is a path's state before a change: whether it existed and, if so, its mode and the
// blob holding its content.
type State struct {
	Exists bool        `json:"exists"`
	Mode   fs.FileMode `json:"mode,omitempty"`
	Blob   string      `json:"blob,omitempty"`
	Size   int64       `json:"size,omitempty"`
}

// Skipped is a path a change touched whose state before was not captured, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Reasons a path was not captured.
const (
	ReasonTooLarge   = "too large"
	ReasonStoreFull  = "store full"
	ReasonOutside    = "outside the working directories"
	ReasonNotRegular = "not a regular file"
	ReasonUnreadable = "unreadable"
)

// entry is a changed path in a point: its state before the point's first change of it, and
// the fingerprint the agent left it with after its last.
type entry struct {
	Before State       `json:"before"`
	After  fingerprint `json:"after"`
}

// Point is the checkpoint of one user message.
type Point struct {
	// ID is the user message's id.
	ID string `json:"id"`
	// Label is a short text for pickers (the message's first line).
	Label   string            `json:"label,omitempty"`
	Files   map[string]*entry `json:"files"`
	Skipped []Skipped         `json:"skipped,omitempty"`
}

// Changed lists the paths the point changed, sorted.
func (p *Point) Changed() []string {
	out := make([]string, 0, len(p.Files))
	for path := range p.Files {
		out = append(out, path)
	}
	slices.Sort(out)
	return out
}

// Store is one session's checkpoints. Its methods are safe for concurrent use.
type Store struct {
	dir    string
	roots  []string
	limits Limits

	mu      sync.Mutex
	points  []*Point
	cache   map[string]cached
	total   int64
	pending map[*Pending]bool
	// sys is how a restore writes; nil is the real system (tests put faults in its way).
	sys restoreSys
}

// Open opens (or creates) the store in dir for the working directories roots, which must be
// absolute; symlinks in them are resolved once, here, so that a later swap is seen.
func Open(dir string, roots []string, limits Limits) (*Store, error) {
	s := &Store{dir: dir, limits: limits, cache: map[string]cached{}, pending: map[*Pending]bool{}}
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("checkpoint: working directory %q is not absolute", r)
		}
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			return nil, fmt.Errorf("checkpoint: working directory: %w", err)
		}
		s.roots = append(s.roots, filepath.Clean(real))
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: store: %w", err)
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	if err := s.saveRoots(); err != nil {
		return nil, err
	}
	return s, nil
}

// Reopen opens an existing store with the working directories it was last opened for (reins
// rewind on a saved session).
func Reopen(dir string, limits Limits) (*Store, error) {
	b, err := os.ReadFile(filepath.Join(dir, "roots.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: no checkpoints in %s", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var roots []string
	if err := json.Unmarshal(b, &roots); err != nil || len(roots) == 0 {
		return nil, fmt.Errorf("checkpoint: %s: not a list of working directories", filepath.Join(dir, "roots.json"))
	}
	return Open(dir, roots, limits)
}

// saveRoots records the working directories, for Reopen.
func (s *Store) saveRoots() error {
	b, _ := json.Marshal(s.roots)
	tmp := filepath.Join(s.dir, "roots.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, "roots.json")); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// load reads the points and measures the blobs of a store opened again (a resumed session).
func (s *Store) load() error {
	b, err := os.ReadFile(filepath.Join(s.dir, "points.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("checkpoint: %w", err)
	default:
		if err := json.Unmarshal(b, &s.points); err != nil {
			return fmt.Errorf("checkpoint: %s: %w", filepath.Join(s.dir, "points.json"), err)
		}
	}
	return filepath.WalkDir(filepath.Join(s.dir, "blobs"), func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if info, err := d.Info(); err == nil {
			s.total += info.Size()
		}
		return nil
	})
}

// save writes the points with temp file + rename, so a crash leaves the old or the new list.
func (s *Store) save() error {
	b, err := json.Marshal(s.points)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := filepath.Join(s.dir, "points.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, "points.json")); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// Roots returns the working directories, resolved.
func (s *Store) Roots() []string { return slices.Clone(s.roots) }

// Begin starts the point of a user message (again, when id is already a point: a resumed
// turn). Changes captured from now on belong to it unless their Pending names another.
func (s *Store) Begin(id, label string) error {
	if id == "" {
		return errors.New("checkpoint: a point needs the user message's id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.find(id) >= 0 {
		return nil
	}
	s.points = append(s.points, &Point{ID: id, Label: label, Files: map[string]*entry{}})
	return s.save()
}

// Points returns a copy of the points, oldest first.
func (s *Store) Points() []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Point, len(s.points))
	for i, p := range s.points {
		out[i] = Point{ID: p.ID, Label: p.Label, Files: map[string]*entry{}, Skipped: slices.Clone(p.Skipped)}
		for k, e := range p.Files {
			c := *e
			out[i].Files[k] = &c
		}
	}
	return out
}

// Has reports whether id is a point.
func (s *Store) Has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.find(id) >= 0
}

func (s *Store) find(id string) int {
	return slices.IndexFunc(s.points, func(p *Point) bool { return p.ID == id })
}

// current is the last point, nil before the first Begin.
func (s *Store) current() *Point {
	if len(s.points) == 0 {
		return nil
	}
	return s.points[len(s.points)-1]
}

// within returns the root path lies in, or "".
func (s *Store) within(path string) string {
	for _, r := range s.roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) || r == "/" {
			return r
		}
	}
	return ""
}

// ChangedSince lists the paths changed at point id or later, sorted; nil for an unknown id.
func (s *Store) ChangedSince(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.find(id)
	if i < 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range s.points[i:] {
		for path := range p.Files {
			if !seen[path] {
				seen[path] = true
				out = append(out, path)
			}
		}
	}
	slices.Sort(out)
	return out
}
