package settings

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
	"github.com/reinsdev/reins/worktree/gitdir"
)

// Flags are the command-line flags that shape the permission context.
type Flags struct {
	// Mode is --permission-mode.
	Mode string
	// DangerouslySkip is --dangerously-skip-permissions: start in bypassPermissions.
	DangerouslySkip bool
	// AllowDangerouslySkip is --allow-dangerously-skip-permissions: make bypassPermissions
	// available without starting in it.
	AllowDangerouslySkip bool
	// AllowedTools and DisallowedTools are the raw --allowedTools and --disallowedTools values;
	// each may hold several rules (see [SplitToolList]).
	AllowedTools, DisallowedTools []string
	// AddDirs are the --add-dir values.
	AddDirs []string
	// Trusted says the project was trusted (see [IsTrusted]). Allow rules, additional
	// directories and defaultMode from the project files, shared and local, apply only in a
	// trusted project (see [WaitsForTrust]).
	Trusted bool
	// Restricted is --restricted: the tools that run code and the web tools denied
	// (RestrictedTools), bypassPermissions refused; the caller also loads only managed and
	// --settings files (RestrictedSources).
	Restricted bool
}

// Status says what became of one entry of a settings file or flag.
type Status string

const (
	StatusLoaded      Status = "loaded"
	StatusInvalid     Status = "invalid"     // not a valid rule, or not a string
	StatusUntrusted   Status = "untrusted"   // a project allow rule or directory in an untrusted project
	StatusManagedOnly Status = "managedOnly" // a non-policy rule while allowManagedPermissionRulesOnly is set
	StatusMissing     Status = "missing"     // a directory that does not exist or is not a directory
)

// Report is the merged view of every source, for `reins permissions list`: per source and
// file, what each entry became and why.
type Report struct {
	Mode permission.Mode `json:"mode"`
	// ModeFrom says what chose the mode: a flag name, a settings position, or "default".
	ModeFrom        string `json:"modeFrom"`
	BypassAvailable bool   `json:"bypassAvailable"`
	// ManagedOnly is set when policy settings allow only managed permission rules.
	ManagedOnly bool         `json:"managedOnly"`
	Trusted     bool         `json:"trusted"`
	Files       []FileReport `json:"files"`
	Warnings    []Warning    `json:"warnings,omitempty"`
	// Broken are the deny and ask rules that could not be loaded: a run must not start with
	// them missing (see [Report.FailClosed]).
	Broken []Warning `json:"broken,omitempty"`
}

// FileReport is one settings file, or the command line (Source cliArg, Path CommandLine).
type FileReport struct {
	Source      permission.Source `json:"source"`
	Path        string            `json:"path"`
	Exists      bool              `json:"exists"`
	DuplicateOf string            `json:"duplicateOf,omitempty"`
	Entries     []EntryReport     `json:"entries,omitempty"`
}

// EntryReport is one rule or directory.
type EntryReport struct {
	// List is allow, ask, deny or additionalDirectories.
	List   string `json:"list"`
	Value  string `json:"value"`
	Line   int    `json:"line,omitempty"`
	Col    int    `json:"col,omitempty"`
	Status Status `json:"status"`
	// Reason says why an entry was not loaded.
	Reason string `json:"reason,omitempty"`
	// Count, when set, says the entry stands for a whole list of Count entries that was not
	// read (an untrusted project's allow rules or directories); Line and Col are the list's.
	Count int `json:"count,omitempty"`
}

// CommandLine is the Path of the report entry for rules and directories given as flags.
const CommandLine = "command line"

const (
	msgBypassDisabled       = "Bypass permissions mode was disabled by settings"
	msgBypassDisabledPolicy = "Bypass permissions mode was disabled by your organization policy"
)

// Context builds the permission context: the rules of every source, the start mode, the
// working directories and the settings files to protect. Warnings are everything that was
// skipped or not honoured, the warnings of [Loaded.Warnings] first. The error is for what Reins
// must not run with: an unknown mode name in --permission-mode or in any file's defaultMode
// (even one a higher-priority candidate overrides, so a typo never waits for the day it
// matters); the latter is a *ParseError with the value's position.
func (l *Loaded) Context(f Flags) (*permission.Context, []Warning, error) {
	pc, r, err := l.Build(f)
	if err != nil {
		return nil, nil, err
	}
	return pc, r.Warnings, nil
}

// Report returns the merged view that [Loaded.Context] builds the context from.
func (l *Loaded) Report(f Flags) (*Report, error) {
	_, r, err := l.Build(f)
	return r, err
}

// Build returns the context and the report together, for callers that need both without
// building twice.
//
// It reads the sources in precedence order into one permission.Config, reporting every entry
// as it goes: the settings files, then the flags; then it chooses the mode and the sandbox and
// compiles the context.
func (l *Loaded) Build(f Flags) (*permission.Context, *Report, error) {
	l, err := l.readWhole(f)
	if err != nil {
		return nil, nil, err
	}
	o := l.opts
	b := &contextBuild{
		r:    &Report{Trusted: f.Trusted, Warnings: l.Warnings()},
		cfg:  permission.Config{Cwd: o.Cwd, Home: o.Home, SettingsFiles: slices.Clone(l.SettingsFiles)},
		dirs: dirSet{opts: o},
	}
	b.managedBy = b.managedOnly(l)
	b.r.ManagedOnly = b.managedBy != nil

	for _, file := range l.Files {
		b.r.Files = append(b.r.Files, b.readFile(file, f.Trusted))
	}
	if cli := b.readFlags(f); len(cli.Entries) > 0 {
		b.r.Files = append(b.r.Files, cli)
	}
	b.warnIgnoredManaged()
	b.cfg.AdditionalDirs = b.dirs.dirs

	if err := l.selectMode(f, b.r); err != nil {
		return nil, nil, err
	}
	b.cfg.Mode = b.r.Mode
	b.cfg.BypassAvailable = b.r.BypassAvailable
	sb, sbWarns := l.Sandbox(f.Trusted)
	b.cfg.Sandbox = sb.Policy
	budget := l.DamageBudget(f.Trusted)
	b.cfg.DamageBudget = &budget
	b.r.Warnings = append(b.r.Warnings, sbWarns...)
	b.cfg.Fences = l.Fences()
	// In a linked worktree the main repository's hooks and configuration are protected
	// paths: the code git runs for this worktree lives there (gitdir.Repo.ProtectedPaths).
	if repo, err := gitdir.Find(o.Cwd); err == nil {
		b.cfg.ProtectedPaths = repo.ProtectedPaths()
	}
	if f.Restricted {
		b.cfg.Rules = append(b.cfg.Rules, restrictedRules()...)
	}

	pc, err := b.compile()
	if err != nil {
		return nil, nil, err
	}
	return pc, b.r, nil
}

// readWhole returns the settings to build from: l itself, or, when the caller trusts a project
// that Load found untrusted, the files read again with the gated lists Load only counted.
func (l *Loaded) readWhole(f Flags) (*Loaded, error) {
	if !f.Trusted || !l.unread {
		return l, nil
	}
	o := l.opts
	o.trusted = true
	return Load(o)
}

// contextBuild is one [Loaded.Build] under way: the report and the config it fills source by
// source.
type contextBuild struct {
	r    *Report
	cfg  permission.Config
	dirs dirSet
	// managedBy is the policy file that allows only managed permission rules, or nil; rules of
	// other sources are then reported, not loaded, and counted in ignoredManaged.
	managedBy      *File
	ignoredManaged int
}

func (b *contextBuild) warn(file string, line, col int, format string, args ...any) {
	b.r.Warnings = append(b.r.Warnings, Warning{File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
}

// managedOnly returns the policy file that sets allowManagedPermissionRulesOnly, or nil.
// The key merges like any scalar, but only policy files count.
func (b *contextBuild) managedOnly(l *Loaded) *File {
	var managedBy *File
	for _, file := range l.scalarOrder() {
		m := file.Settings.ManagedOnly
		if m == nil {
			continue
		}
		if file.Source != permission.SourcePolicy {
			b.warn(file.Path, m.Line, m.Col, "allowManagedPermissionRulesOnly is only honoured in managed policy settings and was ignored")
			continue
		}
		managedBy = nil
		if m.Value {
			managedBy = file
		}
	}
	return managedBy
}

// readFile loads the rules and directories of one settings file and reports each entry.
func (b *contextBuild) readFile(file *File, trusted bool) FileReport {
	fr := FileReport{Source: file.Source, Path: file.Path, Exists: file.Exists, DuplicateOf: file.DuplicateOf}
	if !file.Exists || file.DuplicateOf != "" {
		return fr
	}
	untrusted := WaitsForTrust(file.Source) && !trusted
	untrustedRules := b.readFileRules(&fr, file, untrusted)
	untrustedDirs := b.readFileDirs(&fr, file, untrusted)
	fr.Entries = append(fr.Entries, secretFiles(b.r, &b.cfg, file, b.warn)...)
	if untrustedRules+untrustedDirs > 0 {
		b.warn(file.Path, 0, 0, `this project is not trusted: %s and %s were ignored (deny and ask rules still apply)%s; run "reins trust" to trust it`,
			plural(untrustedRules, "allow rule"), plural(untrustedDirs, "additional directory", "additional directories"), waitsNote(file.Source))
	}
	return fr
}

// readFileRules classifies each allow, ask and deny entry of a file: broken, invalid, set
// aside by managed-only or an untrusted project, or loaded into the config. It returns how
// many allow rules the project's trust would have loaded.
func (b *contextBuild) readFileRules(fr *FileReport, file *File, untrusted bool) (untrustedRules int) {
	s := &file.Settings
	if u := s.UnreadAllow; u != nil {
		fr.Entries = append(fr.Entries, unreadEntry("allow", u, "project allow rules"))
		untrustedRules += u.Count
	}
	for _, list := range []struct {
		name    string
		b       permission.Behavior
		entries []Entry
	}{{"allow", permission.Allow, s.Allow}, {"ask", permission.Ask, s.Ask}, {"deny", permission.Deny, s.Deny}} {
		for _, e := range list.entries {
			er := EntryReport{List: list.name, Value: e.Value, Line: e.Line, Col: e.Col, Status: StatusLoaded}
			if e.NotString {
				er.Status, er.Reason = StatusInvalid, "not a string"
				if b.managedBy == nil || file.Source == permission.SourcePolicy {
					b.r.broken(list.b, file.Path, e.Line, e.Col, "%s entry %s is not a string", list.name, e.Value)
				}
			} else if err := permission.ValidateRule(e.Value); err != nil {
				er.Status, er.Reason = StatusInvalid, err.Error()
				// Claude Code's wording, with the rule quoted as written.
				b.warn(file.Path, e.Line, e.Col, `Invalid permission rule "%s" was skipped: %v`, e.Value, err)
				// Under allowManagedPermissionRulesOnly the rule would not apply anyway.
				if b.managedBy == nil || file.Source == permission.SourcePolicy {
					b.r.broken(list.b, file.Path, e.Line, e.Col, `invalid %s rule "%s": %v`, list.name, e.Value, err)
				}
			} else if b.managedBy != nil && file.Source != permission.SourcePolicy {
				er.Status, er.Reason = StatusManagedOnly, "managed policy allows only its own permission rules"
				b.ignoredManaged++
			} else if untrusted && list.b == permission.Allow {
				er.Status, er.Reason = StatusUntrusted, "project allow rules apply only in a trusted project"
				untrustedRules++
			} else {
				if hint := lintRule(e.Value); hint != "" {
					b.warn(file.Path, e.Line, e.Col, "%s rule %s %s", list.name, posjson.Quote(e.Value), hint)
				}
				b.cfg.Rules = append(b.cfg.Rules, permission.Rule{
					Value:    permission.ParseRule(e.Value),
					Behavior: list.b,
					Source:   file.Source,
					Origin:   permission.Origin{File: file.Path, Line: e.Line, Col: e.Col},
					Root:     file.Root,
				})
			}
			fr.Entries = append(fr.Entries, er)
		}
	}
	return untrustedRules
}

// readFileDirs adds a file's additional directories that exist, reporting each. It returns how
// many the project's trust would have added.
func (b *contextBuild) readFileDirs(fr *FileReport, file *File, untrusted bool) (untrustedDirs int) {
	s := &file.Settings
	if u := s.UnreadDirectories; u != nil {
		fr.Entries = append(fr.Entries, unreadEntry("additionalDirectories", u, "project directories"))
		untrustedDirs += u.Count
	}
	for _, e := range s.AdditionalDirectories {
		er := EntryReport{List: "additionalDirectories", Value: e.Value, Line: e.Line, Col: e.Col, Status: StatusLoaded}
		switch {
		case e.NotString:
			er.Status, er.Reason = StatusInvalid, "not a string"
		case untrusted:
			er.Status, er.Reason = StatusUntrusted, "project directories apply only in a trusted project"
			untrustedDirs++
		default:
			if reason := b.dirs.add(e.Value, file.Source); reason != "" {
				er.Status, er.Reason = StatusMissing, reason
				b.warn(file.Path, e.Line, e.Col, "additional directory %s was skipped: %s", e.Value, reason)
			}
		}
		fr.Entries = append(fr.Entries, er)
	}
	return untrustedDirs
}

// readFlags loads the rules of --allowedTools and --disallowedTools and the --add-dir
// directories, reported as the command line's entries.
func (b *contextBuild) readFlags(f Flags) FileReport {
	cli := FileReport{Source: permission.SourceCLIArg, Path: CommandLine, Exists: true}
	for _, flag := range []struct {
		name   string
		flag   string
		b      permission.Behavior
		values []string
	}{{"allow", "--allowedTools", permission.Allow, f.AllowedTools}, {"deny", "--disallowedTools", permission.Deny, f.DisallowedTools}} {
		for _, raw := range flag.values {
			for _, rule := range SplitToolList(raw) {
				er := EntryReport{List: flag.name, Value: rule, Status: StatusLoaded}
				// Flags are validated exactly as files are: "bash(rm:*)" or "Bash(rm" listed as
				// an active deny would enforce nothing.
				if err := permission.ValidateRule(rule); err != nil {
					er.Status, er.Reason = StatusInvalid, err.Error()
					b.warn("", 0, 0, `Invalid permission rule "%s" from %s was skipped: %v`, rule, flag.flag, err)
					if b.managedBy == nil {
						b.r.broken(flag.b, flag.flag, 0, 0, `invalid %s rule "%s": %v`, flag.name, rule, err)
					}
				} else if b.managedBy != nil {
					er.Status, er.Reason = StatusManagedOnly, "managed policy allows only its own permission rules"
					b.ignoredManaged++
				} else {
					if hint := lintRule(rule); hint != "" {
						b.warn("", 0, 0, "%s rule %s from %s %s", flag.name, posjson.Quote(rule), flag.flag, hint)
					}
					b.cfg.Rules = append(b.cfg.Rules, permission.Rule{Value: permission.ParseRule(rule), Behavior: flag.b, Source: permission.SourceCLIArg,
						Origin: permission.Origin{Flag: flag.flag}})
				}
				cli.Entries = append(cli.Entries, er)
			}
		}
	}
	for _, d := range f.AddDirs {
		er := EntryReport{List: "additionalDirectories", Value: d, Status: StatusLoaded}
		if reason := b.dirs.add(d, permission.SourceCLIArg); reason != "" {
			er.Status, er.Reason = StatusMissing, reason
			b.warn("", 0, 0, "--add-dir %s was skipped: %s", d, reason)
		}
		cli.Entries = append(cli.Entries, er)
	}
	return cli
}

// warnIgnoredManaged says, at the managed-only setting, how many rules it set aside.
func (b *contextBuild) warnIgnoredManaged() {
	if b.managedBy != nil && b.ignoredManaged > 0 {
		m := b.managedBy.Settings.ManagedOnly
		b.warn(b.managedBy.Path, m.Line, m.Col, "allowManagedPermissionRulesOnly is set: %s from other sources were ignored", plural(b.ignoredManaged, "permission rule"))
	}
}

// compile builds the context from the config. New skips rules it cannot compile and reports
// each; they are warnings like invalid rules, and a deny or ask rule among them is broken.
func (b *contextBuild) compile() (*permission.Context, error) {
	pc, err := permission.New(b.cfg)
	if pc == nil {
		return nil, fmt.Errorf("building permission context: %w", err)
	}
	for _, e := range unjoin(err) {
		b.warn("", 0, 0, "permission rule was skipped: %v", e)
	}
	if err != nil {
		// New's errors name a rule but not its behaviour or where it was written: compile each
		// deny and ask rule alone to report the broken ones at their origin.
		for _, rule := range b.cfg.Rules {
			if rule.Behavior == permission.Allow {
				continue
			}
			if _, err := permission.New(permission.Config{Cwd: b.cfg.Cwd, Rules: []permission.Rule{rule}}); err != nil {
				b.r.broken(rule.Behavior, rule.Origin.File, rule.Origin.Line, rule.Origin.Col, "%v", err)
			}
		}
	}
	return pc, nil
}

// unreadEntry is the one report entry of a list Load counted instead of reading.
func unreadEntry(list string, u *Unread, what string) EntryReport {
	return EntryReport{List: list, Value: fmt.Sprintf("(%d not read)", u.Count), Line: u.Line, Col: u.Col, Count: u.Count,
		Status: StatusUntrusted, Reason: what + " apply only in a trusted project and are read once it is"}
}

// secretFiles adds a file's permissions.secretFiles to cfg. Any source may add patterns, an
// untrusted project's shared file too: a pattern only makes more reads taint the session. An
// entry that is not a valid pattern is broken, as an invalid deny rule is: running without it
// would be looser than what was written.
func secretFiles(r *Report, cfg *permission.Config, file *File, warn func(file string, line, col int, format string, args ...any)) []EntryReport {
	var out []EntryReport
	for _, e := range file.Settings.SecretFiles {
		er := EntryReport{List: "secretFiles", Value: e.Value, Line: e.Line, Col: e.Col, Status: StatusLoaded}
		switch err := permission.ValidateSecretFile(e.Value); {
		case e.NotString:
			er.Status, er.Reason = StatusInvalid, "not a string"
			r.broken(permission.Deny, file.Path, e.Line, e.Col, "secretFiles entry %s is not a string", e.Value)
		case err != nil:
			er.Status, er.Reason = StatusInvalid, err.Error()
			warn(file.Path, e.Line, e.Col, `Invalid secret file pattern "%s" was skipped: %v`, e.Value, err)
			r.broken(permission.Deny, file.Path, e.Line, e.Col, `invalid secretFiles pattern "%s": %v`, e.Value, err)
		default:
			cfg.SecretFiles = append(cfg.SecretFiles, permission.SecretFile{Pattern: e.Value, Root: file.Root,
				Origin: permission.Origin{File: file.Path, Line: e.Line, Col: e.Col}})
		}
		out = append(out, er)
	}
	return out
}

// broken records a deny or ask rule that could not be loaded; allow rules are only skipped.
func (r *Report) broken(b permission.Behavior, file string, line, col int, format string, args ...any) {
	if b == permission.Allow {
		return
	}
	r.Broken = append(r.Broken, Warning{File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
}

// FailClosed returns a [*BrokenPolicyError] when a deny or ask rule of any source could not be
// loaded: not a string, not a valid rule, or a pattern that does not compile. Running without
// it would be looser than what was written, so the commands that run tools (reins -p,
// reins tool run, the interactive session) stop on it; commands that only show the settings
// report it.
func (r *Report) FailClosed() error {
	if len(r.Broken) == 0 {
		return nil
	}
	return &BrokenPolicyError{Problems: slices.Clone(r.Broken)}
}

// BrokenPolicyError lists the deny and ask rules that could not be loaded, each with where it
// was written.
type BrokenPolicyError struct {
	Problems []Warning
}

func (e *BrokenPolicyError) Error() string {
	var b strings.Builder
	b.WriteString("refusing to run: ")
	if len(e.Problems) == 1 {
		b.WriteString("a deny or ask rule is invalid and would enforce nothing: ")
		b.WriteString(e.Problems[0].String())
	} else {
		fmt.Fprintf(&b, "%d deny or ask rules are invalid and would enforce nothing:", len(e.Problems))
		for _, p := range e.Problems {
			b.WriteString("\n  ")
			b.WriteString(p.String())
		}
	}
	b.WriteString("\n(fix or remove the rule; an invalid allow rule is only skipped)")
	return b.String()
}

// selectMode picks the start mode: --dangerously-skip-permissions, then --permission-mode,
// then defaultMode from the settings (a later source wins), then default. A bypassPermissions
// candidate that is not honoured falls through to the next candidate.
func (l *Loaded) selectMode(f Flags, r *Report) error {
	type cand struct {
		mode   permission.Mode
		from   string
		source permission.Source
		entry  *Entry
		file   string
	}
	var cands []cand
	if f.DangerouslySkip {
		cands = append(cands, cand{mode: permission.ModeBypass, from: "--dangerously-skip-permissions", source: permission.SourceCLIArg})
	}
	if f.Mode != "" {
		m, err := permission.ParseMode(f.Mode)
		if err != nil {
			return fmt.Errorf("--permission-mode: %w", err)
		}
		cands = append(cands, cand{mode: m, from: "--permission-mode", source: permission.SourceCLIArg})
	}
	if f.Restricted && (f.DangerouslySkip || f.AllowDangerouslySkip || (len(cands) > 0 && cands[len(cands)-1].mode == permission.ModeBypass)) {
		return fmt.Errorf("--restricted refuses bypassPermissions (--dangerously-skip-permissions, --allow-dangerously-skip-permissions, --permission-mode bypassPermissions)")
	}
	order := l.scalarOrder()
	var disabledBy *File
	for i := len(order) - 1; i >= 0; i-- {
		file := order[i]
		if e := file.Settings.DefaultMode; e != nil {
			m, err := permission.ParseMode(e.Value)
			if err != nil {
				return &ParseError{File: file.Path, Line: e.Line, Col: e.Col, Msg: "permissions.defaultMode: " + err.Error()}
			}
			cands = append(cands, cand{mode: m, from: fmt.Sprintf("%s:%d:%d", file.Path, e.Line, e.Col), source: file.Source, entry: e, file: file.Path})
		}
		// The highest-precedence file that disables bypass names it: policy, if any does.
		if file.Settings.DisableBypass != nil && disabledBy == nil {
			disabledBy = file
		}
	}
	disabledWarned := false
	warnDisabled := func() {
		if disabledWarned {
			return
		}
		disabledWarned = true
		msg := msgBypassDisabled
		if disabledBy.Source == permission.SourcePolicy {
			msg = msgBypassDisabledPolicy
		}
		e := disabledBy.Settings.DisableBypass
		r.Warnings = append(r.Warnings, Warning{File: disabledBy.Path, Line: e.Line, Col: e.Col, Message: msg})
	}
	r.Mode, r.ModeFrom = permission.ModeDefault, "default"
	for _, c := range cands {
		// A cloned repository chooses nothing until it is trusted, not even acceptEdits, and it
		// can commit a local file as well as a shared one.
		if WaitsForTrust(c.source) && !f.Trusted {
			r.Warnings = append(r.Warnings, Warning{File: c.file, Line: c.entry.Line, Col: c.entry.Col,
				Message: fmt.Sprintf("defaultMode %s is ignored: this project is not trusted%s (run reins trust)", c.mode, waitsNote(c.source))})
			continue
		}
		if c.mode == permission.ModeBypass {
			if f.Restricted {
				r.Warnings = append(r.Warnings, Warning{File: c.file, Line: c.entry.Line, Col: c.entry.Col,
					Message: "defaultMode bypassPermissions is ignored: --restricted refuses bypassPermissions"})
				continue
			}
			if c.source == permission.SourceProject || c.source == permission.SourceLocal {
				r.Warnings = append(r.Warnings, Warning{File: c.file, Line: c.entry.Line, Col: c.entry.Col,
					Message: fmt.Sprintf("defaultMode bypassPermissions is ignored in %s: only user, --settings and managed settings may start in bypassPermissions mode", c.source)})
				continue
			}
			if disabledBy != nil {
				warnDisabled()
				continue
			}
		}
		r.Mode, r.ModeFrom = c.mode, c.from
		break
	}
	if disabledBy != nil && f.AllowDangerouslySkip {
		warnDisabled()
	}
	r.BypassAvailable = (r.Mode == permission.ModeBypass || f.AllowDangerouslySkip) && disabledBy == nil && !f.Restricted
	return nil
}

// scalarOrder lists the loaded files from the lowest precedence to the highest: user, project,
// local, flag, policy, and within a source Claude Code's files before Reins' own, so that Reins'
// file wins a scalar such as defaultMode. Within a managed folder, drop-ins come after
// managed-settings.json in name order and so win over it.
// ModelSettings returns the winning model, provider and smallModel values ("" where no file
// sets one), by the same precedence as defaultMode.
func (l *Loaded) ModelSettings() (model, provider, smallModel string) {
	for _, f := range l.scalarOrder() {
		if e := f.Settings.Model; e != nil && e.Value != "" {
			model = e.Value
		}
		if e := f.Settings.Provider; e != nil && e.Value != "" {
			provider = e.Value
		}
		if e := f.Settings.SmallModel; e != nil && e.Value != "" {
			smallModel = e.Value
		}
	}
	return model, provider, smallModel
}

// AlwaysThinking returns the winning alwaysThinkingEnabled value, nil when no file sets it,
// by the same precedence as defaultMode.
func (l *Loaded) AlwaysThinking() *bool {
	var on *bool
	for _, f := range l.scalarOrder() {
		if e := f.Settings.AlwaysThinking; e != nil {
			v := e.Value
			on = &v
		}
	}
	return on
}

// AutoCompactEnabled is the winning autoCompactEnabled value, by the same precedence as
// defaultMode; true where no file sets it, as in Claude Code.
func (l *Loaded) AutoCompactEnabled() bool {
	on := true
	for _, f := range l.scalarOrder() {
		if e := f.Settings.AutoCompact; e != nil {
			on = e.Value
		}
	}
	return on
}

func (l *Loaded) scalarOrder() []*File {
	var out []*File
	for _, src := range []permission.Source{permission.SourceUser, permission.SourceProject, permission.SourceLocal, permission.SourceFlag, permission.SourcePolicy} {
		for _, claude := range []bool{true, false} {
			for _, f := range l.Files {
				if f.Source == src && f.Claude == claude && f.Exists && f.DuplicateOf == "" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// dirSet collects additional working directories, each once.
type dirSet struct {
	opts Options
	dirs []permission.WorkingDir
}

// add adds a directory and returns why it was skipped, or "".
func (s *dirSet) add(raw string, src permission.Source) string {
	if strings.TrimSpace(raw) == "" {
		return "the path is empty"
	}
	p := s.opts.expand(raw)
	info, err := os.Stat(p)
	switch {
	case isNotExist(err):
		return p + " does not exist"
	case err != nil:
		return err.Error()
	case !info.IsDir():
		return p + " is not a directory"
	}
	if !slices.ContainsFunc(s.dirs, func(w permission.WorkingDir) bool { return w.Path == p }) {
		s.dirs = append(s.dirs, permission.WorkingDir{Path: p, Source: src})
	}
	return ""
}

// SplitToolList splits one --allowedTools or --disallowedTools value into rules: on commas and
// white space outside parentheses, so "Bash(git diff:*),Read" is two rules and
// "Bash(npm run test)" stays one. The rules are not validated, as in Claude Code.
func SplitToolList(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == '(' || c == ')') && escaped(s, i) {
			continue
		}
		switch c {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	flush(len(s))
	return out
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func plural(n int, one string, many ...string) string {
	if n == 1 {
		return "1 " + one
	}
	if len(many) > 0 {
		return fmt.Sprintf("%d %s", n, many[0])
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// escaped reports whether s[i] follows an odd number of backslashes.
func escaped(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}
