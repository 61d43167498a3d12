package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/reinsdev/reins/permission"
)

// Options says where the settings files are. The zero value of every field but Cwd has a
// default; [OptionsFromEnv] fills them from the environment.
type Options struct {
	// Cwd is the project directory (the directory Reins started in). It must be absolute.
	Cwd string
	// Home is the user's home directory: the default parent of ConfigDir and ClaudeConfigDir,
	// and what "~" expands to.
	Home string
	// ConfigDir is Reins' user folder (REINS_CONFIG_DIR; default Home/.reins).
	ConfigDir string
	// ClaudeConfigDir is Claude Code's user folder (CLAUDE_CONFIG_DIR; default Home/.claude).
	ClaudeConfigDir string
	// ManagedDir is the managed-policy folder (REINS_MANAGED_DIR). Empty means the system
	// folders: /etc/reins and then Claude Code's /etc/claude-code.
	ManagedDir string
	// Flag is the --settings value: a file path, or inline JSON when it starts with '{'.
	Flag string
	// Sources limits which of the user, project and local sources load, like
	// --setting-sources. Nil loads all three; flag and policy settings always load.
	Sources []permission.Source

	// Bundles are policy documents read after the managed files, in order, as policy files: a
	// verified policy bundle (package settings/policy), or a proposed policy that replay
	// tries. Their rules and scalars apply like managed settings.
	Bundles []Bundle

	// trusted makes Load read the shared project files whole whatever the trust file says:
	// [Loaded.Build] sets it when a caller says the project is trusted.
	trusted bool

	// hooks replace file-system operations in tests.
	hooks hooks
}

// hooks are the file-system operations tests replace to inject failures.
type hooks struct {
	rename   func(oldpath, newpath string) error
	readFile func(name string) ([]byte, error)
	// systemDirs replaces the system managed-policy folders.
	systemDirs []string
}

func (h hooks) doRename(oldpath, newpath string) error {
	if h.rename != nil {
		return h.rename(oldpath, newpath)
	}
	return os.Rename(oldpath, newpath)
}

func (h hooks) doReadFile(name string) ([]byte, error) {
	if h.readFile != nil {
		return h.readFile(name)
	}
	return readBounded(name)
}

// The system managed-policy folders, read in this order when Options.ManagedDir is empty.
const (
	systemManagedDir       = "/etc/reins"
	claudeSystemManagedDir = "/etc/claude-code"
)

// Bundle is a policy document held in memory (a verified bundle, a proposed policy) and the
// name (its URL, its file) that positions in it name.
type Bundle struct {
	Name    string
	Data    []byte
	Version string
}

// InlineName stands for the file name of inline --settings JSON in positions and warnings.
const InlineName = "--settings"

// OptionsFromEnv returns the options for a session started in cwd, reading HOME,
// REINS_CONFIG_DIR, CLAUDE_CONFIG_DIR and REINS_MANAGED_DIR.
func OptionsFromEnv(cwd string) Options {
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	home, _ := os.UserHomeDir()
	return Options{
		Cwd:             cwd,
		Home:            home,
		ConfigDir:       os.Getenv("REINS_CONFIG_DIR"),
		ClaudeConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"),
		ManagedDir:      os.Getenv("REINS_MANAGED_DIR"),
	}.withDefaults()
}

// withDefaults fills the user folders from Home. Without a home directory and without
// explicit folders there are no user files.
func (o Options) withDefaults() Options {
	if o.ConfigDir == "" && o.Home != "" {
		o.ConfigDir = filepath.Join(o.Home, ".reins")
	}
	if o.ClaudeConfigDir == "" && o.Home != "" {
		o.ClaudeConfigDir = filepath.Join(o.Home, ".claude")
	}
	return o
}

// ParseSources parses a --setting-sources value such as "user,project": a comma-separated
// list of user, project and local (the full source names such as userSettings work too).
func ParseSources(list string) ([]permission.Source, error) {
	out := []permission.Source{}
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		var s permission.Source
		switch name {
		case "":
			continue
		case "user", "userSettings":
			s = permission.SourceUser
		case "project", "projectSettings":
			s = permission.SourceProject
		case "local", "localSettings":
			s = permission.SourceLocal
		default:
			return nil, fmt.Errorf("unknown setting source %q (valid sources: user, project, local)", name)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

func (o Options) sourceEnabled(s permission.Source) bool {
	switch s {
	case permission.SourceFlag, permission.SourcePolicy:
		return true
	}
	return o.Sources == nil || slices.Contains(o.Sources, s)
}

// candidate is a settings file Load looks at.
type candidate struct {
	source permission.Source
	path   string
	claude bool // one of Claude Code's files
	inline bool
	bundle bool // one of Options.Bundles, whose content is data
	data   []byte
	root   string // what "/x" rule patterns are anchored to
}

// userFiles, projectFiles and localFiles list Reins' file first and Claude Code's second.
func (o Options) userFiles() []candidate {
	var out []candidate
	if o.ConfigDir != "" {
		out = append(out, candidate{source: permission.SourceUser, path: filepath.Join(o.ConfigDir, "settings.json"), root: o.ConfigDir})
	}
	if o.ClaudeConfigDir != "" {
		out = append(out, candidate{source: permission.SourceUser, path: filepath.Join(o.ClaudeConfigDir, "settings.json"), root: o.ClaudeConfigDir, claude: true})
	}
	return out
}

func (o Options) projectFiles(s permission.Source) []candidate {
	name := "settings.json"
	if s == permission.SourceLocal {
		name = "settings.local.json"
	}
	return []candidate{
		{source: s, path: filepath.Join(o.Cwd, ".reins", name), root: o.Cwd},
		{source: s, path: filepath.Join(o.Cwd, ".claude", name), root: o.Cwd, claude: true},
	}
}

// flagFile is the --settings candidate, or nil.
func (o Options) flagFile() *candidate {
	f := strings.TrimSpace(o.Flag)
	if f == "" {
		return nil
	}
	if strings.HasPrefix(f, "{") {
		return &candidate{source: permission.SourceFlag, path: InlineName, inline: true, root: o.Cwd}
	}
	p := o.expand(o.Flag)
	return &candidate{source: permission.SourceFlag, path: p, root: filepath.Dir(p)}
}

type managedDir struct {
	dir    string
	claude bool
}

func (o Options) managedDirs() []managedDir {
	if o.ManagedDir != "" {
		return []managedDir{{dir: o.ManagedDir}}
	}
	sys := []string{systemManagedDir, claudeSystemManagedDir}
	if o.hooks.systemDirs != nil {
		sys = o.hooks.systemDirs
	}
	// Reins' folder first; the others are Claude Code's.
	out := make([]managedDir, len(sys))
	for i, d := range sys {
		out[i] = managedDir{dir: d, claude: i > 0}
	}
	return out
}

// ManagedFolders are the managed-policy folders in the order they are read: ManagedDir, or
// else the system folders. Memory files are looked for in the same places.
func (o Options) ManagedFolders() []string {
	var out []string
	for _, md := range o.managedDirs() {
		out = append(out, md.dir)
	}
	return out
}

// policyFiles lists, per managed folder, managed-settings.json and then the drop-ins of
// managed-settings.d in name order. Hidden files (editor leftovers) and non-.json files are
// not drop-ins.
//
// A managed folder that simply does not exist is no policy. One that is missing for a reason
// nobody would choose is an error, so a broken install never runs as "no policy": a
// REINS_MANAGED_DIR that does not exist or is not a folder, a system folder or
// managed-settings.d that is a file, a dangling symlink for managed-settings.d or a drop-in.
func (o Options) policyFiles() ([]candidate, error) {
	var out []candidate
	for _, md := range o.managedDirs() {
		info, err := os.Stat(md.dir)
		switch {
		case err == nil && !info.IsDir():
			return nil, fmt.Errorf("managed settings folder %s is not a folder: refusing to run without the managed policy", md.dir)
		case err != nil && o.ManagedDir != "":
			return nil, fmt.Errorf("managed settings folder %s (REINS_MANAGED_DIR) cannot be used: %w", md.dir, err)
		case err != nil && isNotExist(err):
			if target, ok := danglingSymlink(md.dir); ok {
				return nil, fmt.Errorf("managed settings folder %s is a symlink to %s, which does not exist: refusing to run without the managed policy", md.dir, target)
			}
			continue
		case err != nil:
			return nil, fmt.Errorf("reading managed settings folder: %w", err)
		}
		out = append(out, candidate{source: permission.SourcePolicy, path: filepath.Join(md.dir, "managed-settings.json"), root: o.Cwd, claude: md.claude})
		dropDir := filepath.Join(md.dir, "managed-settings.d")
		// A file there is refused before it is read as a folder: what reading one gives is the
		// system's (Linux says ENOTDIR, Wine lists nothing).
		if info, err := os.Stat(dropDir); err == nil && !info.IsDir() {
			return nil, fmt.Errorf("managed settings folder %s is not a folder: refusing to run without the managed policy", dropDir)
		}
		ents, err := os.ReadDir(dropDir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if target, ok := danglingSymlink(dropDir); ok {
					return nil, fmt.Errorf("managed settings folder %s is a symlink to %s, which does not exist: refusing to run without the managed policy", dropDir, target)
				}
				continue
			}
			if errors.Is(err, syscall.ENOTDIR) {
				return nil, fmt.Errorf("managed settings folder %s is not a folder: refusing to run without the managed policy", dropDir)
			}
			return nil, fmt.Errorf("reading managed settings folder: %w", err)
		}
		// ReadDir sorts by name.
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") || e.IsDir() {
				continue
			}
			out = append(out, candidate{source: permission.SourcePolicy, path: filepath.Join(dropDir, name), root: o.Cwd, claude: md.claude})
		}
	}
	return out, nil
}

// expand makes a user-written path absolute: "~" and "~/x" are relative to Home, other
// relative paths to Cwd. On Windows a path rooted without a drive ("/var/log/x", "\\x") is on
// Cwd's drive, as Windows opens it, never under Cwd.
func (o Options) expand(p string) string {
	switch {
	case p == "~" && o.Home != "":
		return o.Home
	case strings.HasPrefix(p, "~/") && o.Home != "":
		return filepath.Join(o.Home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case rootedWithoutDrive(p):
		return filepath.Clean(filepath.VolumeName(o.Cwd) + p)
	}
	return filepath.Join(o.Cwd, p)
}

// rootedWithoutDrive reports a Windows path that starts at a root but names no drive or share:
// "\\x" or "/x". It is never true where "/" is the separator (such a path is absolute there).
func rootedWithoutDrive(p string) bool {
	return filepath.Separator == '\\' && p != "" && os.IsPathSeparator(p[0]) && (len(p) == 1 || !os.IsPathSeparator(p[1]))
}

// persistPath is Reins' own file of an editable settings source.
func (o Options) persistPath(s permission.Source) (string, error) {
	switch s {
	case permission.SourceUser:
		if o.ConfigDir == "" {
			return "", fmt.Errorf("no user config folder: neither REINS_CONFIG_DIR nor a home directory is set")
		}
		return filepath.Join(o.ConfigDir, "settings.json"), nil
	case permission.SourceProject:
		return filepath.Join(o.Cwd, ".reins", "settings.json"), nil
	case permission.SourceLocal:
		return filepath.Join(o.Cwd, ".reins", "settings.local.json"), nil
	}
	return "", fmt.Errorf("%s is not a settings file source", s)
}
