package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// ParseError is a settings file that Reins refuses to run with: not valid JSON, or a known key
// of the wrong type. It is the one positioned error of every configuration reader.
type ParseError = posjson.Error

// Warning is a problem Reins reports and then works around: an invalid rule that was skipped,
// a directory that does not exist, a mode that was not honoured.
type Warning struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	switch {
	case w.File == "":
		return w.Message
	case w.Line == 0:
		return w.File + ": " + w.Message
	}
	return fmt.Sprintf("%s:%d:%d: %s", w.File, w.Line, w.Col, w.Message)
}

// Entry is one string a settings file wrote, with its position.
type Entry struct {
	Value string `json:"value"`
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	// NotString marks an array element that is not a string; Value then holds its JSON text.
	// Such entries are skipped with a warning, as Claude Code drops them.
	NotString bool `json:"notString,omitempty"`
}

// BoolEntry is a boolean a settings file wrote, with its position.
type BoolEntry struct {
	Value bool `json:"value"`
	Line  int  `json:"line"`
	Col   int  `json:"col"`
}

// Settings are the keys of one settings file that Reins' permission system reads. Every other
// key is left alone.
type Settings struct {
	Allow                 []Entry `json:"allow,omitempty"`
	Deny                  []Entry `json:"deny,omitempty"`
	Ask                   []Entry `json:"ask,omitempty"`
	AdditionalDirectories []Entry `json:"additionalDirectories,omitempty"`
	// SecretFiles is permissions.secretFiles: patterns of files that hold secrets, added to
	// permission.DefaultSecretFiles (Reins' own key). Every source may add; none can remove.
	SecretFiles []Entry `json:"secretFiles,omitempty"`
	// DefaultMode is permissions.defaultMode, not yet checked to be a mode name.
	DefaultMode *Entry `json:"defaultMode,omitempty"`
	// DisableBypass is permissions.disableBypassPermissionsMode; its value is always "disable".
	DisableBypass *Entry `json:"disableBypassPermissionsMode,omitempty"`
	// BlockReadsOutside, BlockWritesOutside and DenyInsteadOfPrompting are the permissions
	// keys of [Loaded.Fences]; DisableSkillShell is disableSkillShellExecution.
	BlockReadsOutside      *BoolEntry `json:"blockReadsOutsideWorkingDirectories,omitempty"`
	BlockWritesOutside     *BoolEntry `json:"blockWritesOutsideWorkingDirectories,omitempty"`
	DenyInsteadOfPrompting *BoolEntry `json:"denyInsteadOfPrompting,omitempty"`
	DisableSkillShell      *BoolEntry `json:"disableSkillShellExecution,omitempty"`
	// StatusLine is the statusLine key (statusline.go).
	StatusLine *StatusLine `json:"statusLine,omitempty"`
	// ManagedOnly is allowManagedPermissionRulesOnly; it is honoured from policy files only.
	ManagedOnly *BoolEntry `json:"allowManagedPermissionRulesOnly,omitempty"`
	// AutoCompact is autoCompactEnabled: false turns automatic compaction off.
	AutoCompact *BoolEntry `json:"autoCompactEnabled,omitempty"`
	// Model, Provider and SmallModel choose the model API ("anthropic", "openai", "ollama"),
	// the model, and the small model WebFetch summarises pages with.
	Model      *Entry `json:"model,omitempty"`
	Provider   *Entry `json:"provider,omitempty"`
	SmallModel *Entry `json:"smallModel,omitempty"`
	// APIKeyHelper is the command whose output is the model API's key (see
	// [Loaded.APIKeyHelper]).
	APIKeyHelper *Entry `json:"apiKeyHelper,omitempty"`
	// AlwaysThinking is alwaysThinkingEnabled: true asks for extended thinking in every
	// session, false for none.
	AlwaysThinking *BoolEntry `json:"alwaysThinkingEnabled,omitempty"`
	// FileCheckpointing is fileCheckpointingEnabled; Checkpoints the store's limits
	// (checkpoints.go).
	FileCheckpointing *BoolEntry          `json:"fileCheckpointingEnabled,omitempty"`
	Checkpoints       *CheckpointSettings `json:"checkpoints,omitempty"`
	// Sandbox is the sandbox key (see sandbox.go).
	Sandbox *SandboxSettings `json:"sandbox,omitempty"`
	// DamageBudget is the damageBudget key (see damage.go).
	DamageBudget *DamageBudgetSettings `json:"damageBudget,omitempty"`
	// Audit and PolicyBundle are the audit and policyBundle keys (see team.go).
	Audit        *AuditSettings        `json:"audit,omitempty"`
	PolicyBundle *PolicyBundleSettings `json:"policyBundle,omitempty"`
	// Env is the env block: variables for the session's environment (see env.go).
	Env []EnvEntry `json:"env,omitempty"`
	// EnabledPlugins is enabledPlugins (see plugins.go).
	EnabledPlugins []PluginEntry `json:"enabledPlugins,omitempty"`
	// Helpers are the keys naming commands Claude Code runs (see helpers.go).
	Helpers []HelperEntry `json:"helpers,omitempty"`
	// UnreadAllow and UnreadDirectories stand for the allow and additionalDirectories lists of
	// a project file, shared or local, in an untrusted project (see [WaitsForTrust]): they
	// would not apply, so Load counts their entries and reads nothing else of them (Allow and
	// AdditionalDirectories stay empty). A syntax error inside them still fails the file.
	UnreadAllow       *Unread `json:"unreadAllow,omitempty"`
	UnreadDirectories *Unread `json:"unreadDirectories,omitempty"`
}

// Unread is a list of a settings file that was counted, not read: the number of its entries
// and the position of the list.
type Unread struct {
	Count int `json:"count"`
	Line  int `json:"line"`
	Col   int `json:"col"`
}

// trustGated are the permissions lists of a project file, shared or local, that apply only
// once the project is trusted, and so are not read before.
var trustGated = []string{"allow", "additionalDirectories"}

// File is one settings file Load looked at.
type File struct {
	Source permission.Source `json:"source"`
	// Path is the file's path, or InlineName for inline --settings JSON.
	Path   string `json:"path"`
	Claude bool   `json:"claude,omitempty"` // one of Claude Code's files
	Inline bool   `json:"inline,omitempty"`
	// Bundle marks a policy document of [Options.Bundles], read as a policy file.
	Bundle bool `json:"bundle,omitempty"`
	// Root is the folder "/x" path rules from this file are anchored to.
	Root   string `json:"root"`
	Exists bool   `json:"exists"`
	// DuplicateOf names an earlier file that is the same file (a symlink, or the same path
	// reached as two sources); this one is then not loaded again.
	DuplicateOf string   `json:"duplicateOf,omitempty"`
	Settings    Settings `json:"settings"`
	// HookSettings are the file's hooks (see hooks.go).
	HookSettings HookSettings `json:"hookSettings,omitzero"`
	Warnings     []Warning    `json:"warnings,omitempty"`
}

// Loaded is the result of reading every settings file of a session.
type Loaded struct {
	opts Options
	// Files are the files of the enabled sources in load order: user, project, local, flag,
	// policy; within a source Reins' file before Claude Code's.
	Files []*File
	// SettingsFiles are the paths of every settings file of every source, whether it exists,
	// whether its source is enabled, plus the workspace-trust file: the files the engine must
	// protect from the agent.
	SettingsFiles []string
	// unread is set when a file's trust-gated lists were only counted (see Settings.UnreadAllow).
	unread bool
}

// Options returns the options the settings were loaded with, defaults filled in.
func (l *Loaded) Options() Options { return l.opts }

// Warnings are the problems found while reading the files, in load order.
func (l *Loaded) Warnings() []Warning {
	var out []Warning
	for _, f := range l.Files {
		out = append(out, f.Warnings...)
	}
	return out
}

// Load reads the settings files of every enabled source. A missing file is fine; a file that
// cannot be read, is not valid JSON, or has a known key of the wrong type is an error, so that a
// policy's deny rules are never silently missing. An error about a file's content is a
// *ParseError.
//
// In a project that is not trusted (see [IsTrusted]; a trust file that cannot be read is no
// trust), the allow rules and additional directories of the project files, shared and local
// (see [WaitsForTrust]), are counted, not read: they cost a scan of their bytes, not a rule
// each (see [Settings.UnreadAllow]).
// [Loaded.Build] with [Flags.Trusted] reads the files again whole.
func Load(opts Options) (*Loaded, error) {
	if !filepath.IsAbs(opts.Cwd) {
		return nil, fmt.Errorf("settings: working directory %q is not absolute", opts.Cwd)
	}
	opts = opts.withDefaults()
	l := &Loaded{opts: opts}
	trusted := opts.trusted
	if !trusted {
		// An error here leaves the gated lists unread, the side that grants nothing; the
		// callers that need the answer ask IsTrusted themselves and report the error.
		trusted, _ = IsTrusted(opts.ConfigDir, opts.Home, opts.Cwd)
	}

	var all []candidate
	all = append(all, opts.userFiles()...)
	all = append(all, opts.projectFiles(permission.SourceProject)...)
	all = append(all, opts.projectFiles(permission.SourceLocal)...)
	if c := opts.flagFile(); c != nil {
		all = append(all, *c)
	}
	policy, err := opts.policyFiles()
	if err != nil {
		return nil, err
	}
	all = append(all, policy...)
	for _, b := range opts.Bundles {
		all = append(all, candidate{source: permission.SourcePolicy, path: b.Name, root: opts.Cwd, bundle: true, data: b.Data})
	}

	type seenFile struct {
		path string
		info fs.FileInfo
	}
	var seen []seenFile
	for _, c := range all {
		if !c.inline && !c.bundle {
			l.SettingsFiles = append(l.SettingsFiles, c.path)
		}
		if !opts.sourceEnabled(c.source) {
			continue
		}
		f := &File{Source: c.source, Path: c.path, Claude: c.claude, Inline: c.inline, Root: c.root, Bundle: c.bundle}
		l.Files = append(l.Files, f)
		var data []byte
		if c.bundle || c.inline {
			// Given as data, not read here: held to the files' cap all the same.
			f.Exists = true
			data = c.data
			if c.inline {
				data = []byte(opts.Flag)
			}
			if len(data) > MaxFileSize {
				return nil, &TooLargeError{Path: c.path, Size: int64(len(data)), Limit: MaxFileSize, Kind: fileLimits.Kind}
			}
		} else {
			info, err := os.Stat(c.path)
			if isNotExist(err) {
				if err := missingFile(c, f); err != nil {
					return nil, err
				}
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", c.source, err)
			}
			f.Exists = true
			for _, s := range seen {
				if os.SameFile(s.info, info) {
					f.DuplicateOf = s.path
					break
				}
			}
			if f.DuplicateOf != "" {
				continue
			}
			seen = append(seen, seenFile{c.path, info})
			data, err = opts.hooks.doReadFile(c.path)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", c.source, err)
			}
		}
		gated := WaitsForTrust(c.source) && !trusted
		s, root, warns, err := parseSettingsAs(f.Path, data, c.source == permission.SourcePolicy, gated)
		if err != nil {
			return nil, err
		}
		l.unread = l.unread || s.UnreadAllow != nil || s.UnreadDirectories != nil
		hs, hw, err := parseHookSettings(f.Path, data, root)
		if err != nil {
			return nil, err
		}
		f.Settings, f.HookSettings, f.Warnings = s, hs, append(warns, hw...)
	}
	if opts.ConfigDir != "" {
		l.SettingsFiles = append(l.SettingsFiles, trustFile(opts.ConfigDir))
	}
	return l, nil
}

// missingFile decides about a settings file that is not there: fine for most, an error for
// --settings, and for a dangling symlink an error in managed policy (someone meant a policy
// to be there, and running without it would be looser than what they wrote) and a warning
// elsewhere.
func missingFile(c candidate, f *File) error {
	if c.source == permission.SourceFlag {
		return fmt.Errorf("settings file %s (from --settings) not found", c.path)
	}
	target, ok := danglingSymlink(c.path)
	switch {
	case !ok:
		return nil
	case c.source == permission.SourcePolicy:
		return fmt.Errorf("managed settings %s is a symlink to %s, which does not exist: refusing to run without the managed policy", c.path, target)
	}
	f.Warnings = append(f.Warnings, Warning{File: c.path, Message: fmt.Sprintf("symlink to %s, which does not exist; no settings were read from it", target)})
	return nil
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// parseSettings reads one settings document that is not managed policy.
func parseSettings(name string, data []byte) (Settings, *posjson.Value, []Warning, error) {
	return parseSettingsAs(name, data, false, false)
}

// parseSettingsAs reads one settings document. A document of only white space is an empty
// settings object, as an empty file is in Claude Code.
//
// Beyond syntax and types, it refuses what would make the file's policy silently weaker than
// what was written: duplicate keys in a document that holds deny or ask rules (which value
// wins is a guess), an unknown permissions key that is a misspelt deny or ask, and, in managed
// policy (policy set), any unknown key that could hold rules. Other unknown keys are warnings
// with a "did you mean".
//
// With untrusted set (a project file, shared or local, of a project not trusted), the
// trust-gated lists are only counted: neither their entries nor any problem in them but a
// syntax error is read.
func parseSettingsAs(name string, data []byte, policy, untrusted bool) (Settings, *posjson.Value, []Warning, error) {
	var s Settings
	if len(bytes.TrimSpace(data)) == 0 {
		return s, posjson.NewObject(), nil, nil
	}
	d := settingsDoc{docPos: docPos{name: name}}
	root, err := d.parse(data, untrusted)
	if err != nil {
		return s, nil, nil, err
	}
	strict := holdsDenyOrAsk(root)
	if pe := checkTopKeys(root, policy, strict, d.warnAt); pe != nil {
		return s, nil, nil, d.errAt(pe.Off, "%s", pe.Msg)
	}
	if err := d.readTopLevel(root, &s); err != nil {
		return s, nil, nil, err
	}
	if err := d.readCheckpoints(root, &s); err != nil {
		return s, nil, nil, err
	}
	d.readEnabledPlugins(root, &s)
	s.Helpers = readHelpers(root, d.idx.Pos)
	sb, err := parseSandbox(root, d.errAt, d.idx.Pos)
	if err != nil {
		return s, nil, nil, err
	}
	s.Sandbox = sb
	if s.DamageBudget, err = parseDamageBudget(root, d.docPos); err != nil {
		return s, nil, nil, err
	}
	if err := parseTeamKeys(root, &s, d.errAt, d.idx.Pos); err != nil {
		return s, nil, nil, err
	}
	if s.Env, err = parseEnv(root, d.errAt, d.idx.Pos); err != nil {
		return s, nil, nil, err
	}
	if err := d.readPermissions(root, &s, policy, strict, untrusted); err != nil {
		return s, nil, nil, err
	}
	return s, root, d.warns, nil
}

// settingsDoc is one settings document being read: where its values are, for errors and
// warnings that name a line and column, and the warnings so far.
type settingsDoc struct {
	docPos
	warns []Warning
}

// docPos places a document's offsets. Its errAt has a value receiver so that handing it on as
// a function (to parseSandbox) copies the position, not the whole settingsDoc to the heap.
type docPos struct {
	name string
	idx  posjson.Lines
}

func (p docPos) errAt(off int, format string, args ...any) *ParseError {
	return p.idx.Errorf(p.name, off, format, args...)
}

func (d *settingsDoc) warnAt(off int, format string, args ...any) {
	line, col := d.idx.Pos(off)
	d.warns = append(d.warns, Warning{File: d.name, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
}

// parse reads the document's JSON tree, which must be an object. With untrusted set the
// trust-gated lists are counted, not built.
func (d *settingsDoc) parse(data []byte, untrusted bool) (*posjson.Value, error) {
	data = posjson.BlankBOM(data)
	d.idx = posjson.NewLines(data)
	var counted []string
	if untrusted {
		counted = trustGated
	}
	root, err := posjson.ParseCounting(data, "permissions", counted)
	if err != nil {
		var pe *posjson.OffsetError
		if errors.As(err, &pe) {
			return nil, d.errAt(pe.Off, "%s", pe.Msg)
		}
		return nil, &ParseError{File: d.name, Msg: err.Error()}
	}
	if root.Kind != posjson.Object {
		return nil, d.errAt(root.Off, "settings must be a JSON object, not %s", root.Kind)
	}
	return root, nil
}

// readTopLevel reads the top-level keys of one value: allowManagedPermissionRulesOnly and
// the model choice.
func (d *settingsDoc) readTopLevel(root *posjson.Value, s *Settings) error {
	// null is not "absent" for the permission keys: Claude Code's schema rejects it, and read
	// as absent it would drop a list of deny rules or a restriction without a word.
	if v := root.Get("allowManagedPermissionRulesOnly"); v != nil {
		if v.Kind != posjson.Bool {
			return d.errAt(v.Off, "allowManagedPermissionRulesOnly must be true or false, not %s", v.Kind)
		}
		line, col := d.idx.Pos(v.Off)
		s.ManagedOnly = &BoolEntry{Value: v.Bool, Line: line, Col: col}
	}
	if v := root.Get("alwaysThinkingEnabled"); v != nil && v.Kind != posjson.Null {
		if v.Kind != posjson.Bool {
			return d.errAt(v.Off, "alwaysThinkingEnabled must be true or false, not %s", v.Kind)
		}
		line, col := d.idx.Pos(v.Off)
		s.AlwaysThinking = &BoolEntry{Value: v.Bool, Line: line, Col: col}
	}

	if v := root.Get("autoCompactEnabled"); v != nil && v.Kind != posjson.Null {
		if v.Kind != posjson.Bool {
			return d.errAt(v.Off, "autoCompactEnabled must be true or false, not %s", v.Kind)
		}
		line, col := d.idx.Pos(v.Off)
		s.AutoCompact = &BoolEntry{Value: v.Bool, Line: line, Col: col}
	}

	for _, k := range []struct {
		key string
		dst **Entry
	}{{"model", &s.Model}, {"provider", &s.Provider}, {"smallModel", &s.SmallModel}, {"apiKeyHelper", &s.APIKeyHelper}} {
		v := root.Get(k.key)
		if v == nil || v.Kind == posjson.Null {
			continue
		}
		if v.Kind != posjson.String {
			return d.errAt(v.Off, "%s must be a string, not %s", k.key, v.Kind)
		}
		line, col := d.idx.Pos(v.Off)
		*k.dst = &Entry{Value: v.Str, Line: line, Col: col}
	}
	if err := d.readSkillShell(root, s); err != nil {
		return err
	}
	return d.readStatusLine(root, s)
}

// readPermissions reads the permissions object: its keys checked, its lists, defaultMode and
// disableBypassPermissionsMode.
func (d *settingsDoc) readPermissions(root *posjson.Value, s *Settings, policy, strict, untrusted bool) error {
	perms := root.Get("permissions")
	if perms == nil {
		return nil
	}
	if perms.Kind != posjson.Object {
		return d.errAt(perms.Off, "permissions must be an object, not %s", perms.Kind)
	}
	if pe := checkPermissionKeys(perms, policy, strict, d.warnAt); pe != nil {
		return d.errAt(pe.Off, "%s", pe.Msg)
	}
	if err := d.readPermissionLists(perms, s, untrusted); err != nil {
		return err
	}
	if v := perms.Get("defaultMode"); v != nil {
		if v.Kind != posjson.String {
			return d.errAt(v.Off, "permissions.defaultMode must be a string, not %s", v.Kind)
		}
		line, col := d.idx.Pos(v.Off)
		s.DefaultMode = &Entry{Value: v.Str, Line: line, Col: col}
	}
	if v := perms.Get("disableBypassPermissionsMode"); v != nil {
		if v.Kind != posjson.String || v.Str != "disable" {
			return d.errAt(v.Off, `permissions.disableBypassPermissionsMode must be "disable", not %s`, v.Describe())
		}
		line, col := d.idx.Pos(v.Off)
		s.DisableBypass = &Entry{Value: v.Str, Line: line, Col: col}
	}
	return d.readFences(perms, s)
}

// readPermissionLists reads the allow, deny, ask and additionalDirectories lists, each entry
// with its position; an entry that is not a string is kept, marked, with a warning. With
// untrusted set the trust-gated lists are only counted.
func (d *settingsDoc) readPermissionLists(perms *posjson.Value, s *Settings, untrusted bool) error {
	lists := []struct {
		key    string
		dst    *[]Entry
		unread **Unread
	}{
		{"allow", &s.Allow, &s.UnreadAllow}, {"deny", &s.Deny, nil}, {"ask", &s.Ask, nil},
		{"additionalDirectories", &s.AdditionalDirectories, &s.UnreadDirectories},
		{"secretFiles", &s.SecretFiles, nil},
	}
	for _, l := range lists {
		v := perms.Get(l.key)
		if v == nil {
			continue
		}
		if v.Kind != posjson.Array {
			return d.errAt(v.Off, "permissions.%s must be an array of strings, not %s", l.key, v.Kind)
		}
		if untrusted && l.unread != nil {
			// A list nested too deeply to be counted was built; it is not read either.
			if n := v.Counted + len(v.Elems); n > 0 {
				line, col := d.idx.Pos(v.Off)
				*l.unread = &Unread{Count: n, Line: line, Col: col}
			}
			continue
		}
		for _, el := range v.Elems {
			line, col := d.idx.Pos(el.Off)
			if el.Kind != posjson.String {
				*l.dst = append(*l.dst, Entry{Value: el.Describe(), Line: line, Col: col, NotString: true})
				d.warnAt(el.Off, "permissions.%s entry %s is not a string and was skipped", l.key, el.Describe())
				continue
			}
			*l.dst = append(*l.dst, Entry{Value: el.Str, Line: line, Col: col})
		}
	}
	return nil
}
