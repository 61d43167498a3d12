package permission

import (
	"errors"
	"fmt"
	"hash/maphash"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Origin is where a rule was written: a settings file with the entry's position, or nothing
// for rules from flags and the session.
type Origin struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	// Flag is the command-line flag a rule came from (--allowedTools), for rules not in a file.
	Flag string `json:"flag,omitempty"`
}

func (o Origin) String() string {
	if o.File == "" {
		return o.Flag
	}
	if o.Line == 0 {
		return o.File
	}
	return fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Col)
}

// Rule is one allow, ask or deny rule with where it came from.
type Rule struct {
	Value    RuleValue `json:"-"`
	Behavior Behavior  `json:"behavior"`
	Source   Source    `json:"source"`
	Origin   Origin    `json:"origin,omitzero"`
	// Root is the directory a "/x" path pattern is anchored to: the project for project,
	// local and policy settings, the config folder for user settings, the file's folder for
	// --settings files. Empty means the original working directory.
	Root string `json:"-"`

	path      *pathPattern // compiled once for Read/Edit rules
	rootLower string
}

// Describe names the rule with its source and file, for traces and messages.
func (r *Rule) Describe() string {
	s := fmt.Sprintf("%s %q from %s", r.Behavior, r.Value.String(), r.Source)
	if o := r.Origin.String(); o != "" {
		s += " (" + o + ")"
	}
	return s
}

// MarshalJSON-friendly accessor for the rule text.
func (r Rule) String() string { return r.Value.String() }

// WorkingDir is a directory the agent may work in besides the original working directory.
type WorkingDir struct {
	Path   string `json:"path"`
	Source Source `json:"source"`
}

// Config is everything needed to build a Context. Paths must be absolute.
type Config struct {
	Mode        Mode
	PrePlanMode Mode
	// Cwd is the original working directory (where the session started).
	Cwd string
	// Home is the user's home directory, for "~" expansion and protected shell files.
	Home string
	// AdditionalDirs are the other working directories.
	AdditionalDirs []WorkingDir
	Rules          []Rule
	// BypassAvailable allows switching to bypassPermissions; plan mode then also bypasses.
	BypassAvailable bool
	AutoAvailable   bool
	// AvoidPrompts marks contexts where no person can answer (background agents): asks
	// become denials after hooks had their say.
	AvoidPrompts bool
	// SettingsFiles are the settings files of every source; they are protected paths.
	SettingsFiles []string
	// Sandbox is the sandbox policy (step 1b's auto-allow).
	Sandbox SandboxPolicy
	// DamageBudget is how much a Bash command may destroy without a safety ask; nil
	// means DefaultDamageBudget.
	DamageBudget *DamageBudget
	// InternalReadDirs are folders the program keeps for the model to read (the agent's
	// saved tool results): reads under them are allowed without asking, after the Read deny
	// and ask rules, like Claude Code's internal paths. A folder made later is fine; its
	// symlink-resolved form is taken from its deepest existing ancestor.
	InternalReadDirs []string
	// SecretFiles are patterns of files that hold secrets, added to DefaultSecretFiles.
	SecretFiles []SecretFile
	// Taint is the session's taint record; nil starts a clean one.
	Taint *Taint
	// Fences turn asks about reads and writes outside the working directories, or every
	// ask, into denials (fences.go).
	Fences Fences
	// ProtectedPaths are exact paths protected like the protected names (absolute; a folder
	// with everything under it): a linked worktree's main .git/hooks and .git/config.
	ProtectedPaths []string
}

// Context is an immutable snapshot of the permission state. Build one with [New]; change it
// with the With methods and [Context.Apply], which return new contexts.
type Context struct {
	mode            Mode
	prePlanMode     Mode
	origCwd         string
	cwd             string
	home            string
	dirs            []WorkingDir
	rules           []*Rule
	bypassAvailable bool
	autoAvailable   bool
	avoidPrompts    bool
	settingsFiles   []string
	// narrowed drops the original directory from the working directories (see Within); it
	// stays the anchor of path rules.
	narrowed bool

	sandbox SandboxPolicy
	damage  DamageBudget
	// internalRead are the lower-cased forms of Config.InternalReadDirs, as given and
	// resolved.
	internalRead []string
	// secrets are the compiled secret file patterns; taint is the session's record of the
	// secrets read, shared by every context derived from this one (taint.go).
	secrets []SecretFile
	taint   *Taint
	// fences and protectedPaths are Config's (fences.go).
	fences         Fences
	protectedPaths []string

	index ruleIndex
	// dirForms are the working directories with their symlink-resolved forms, computed when
	// the directories change rather than on every check.
	dirForms []string
	// homeForms are the home folder, lower-cased, as given and symlink-resolved (protected.go).
	homeForms []string
	// lower holds the lower-cased anchors of path rules.
	lower struct{ cwd, origCwd, home string }
	// memo holds values derived from the rules (see Memo). Contexts that share their rules
	// share it; a change of rules starts a new one.
	memo *sync.Map
}

// ruleIndex finds rules by behaviour and tool name without scanning every rule.
type ruleIndex struct {
	toolWide [4]map[string][]*Rule // exact tool name
	server   [4]map[string][]*Rule // MCP server-level rules by server
	mcpGlobs [4][]*Rule            // MCP rules with a glob in the name (mcp__*, mcp__srv__get_*)
	content  [4]map[string][]*Rule // content rules by tool name
	// configAllow are the Edit allow rules that may open a config folder (opensConfigFolder),
	// in load order: few or none, so a write check does not look at every Edit allow rule.
	configAllow []*Rule
}

// New builds a context, compiling every rule once.
func New(cfg Config) (*Context, error) {
	if !filepath.IsAbs(cfg.Cwd) {
		return nil, fmt.Errorf("working directory %q is not absolute", cfg.Cwd)
	}
	mode := cfg.Mode
	if mode == "" {
		mode = ModeDefault
	}
	c := &Context{
		mode:            mode,
		prePlanMode:     cfg.PrePlanMode,
		origCwd:         filepath.Clean(cfg.Cwd),
		cwd:             filepath.Clean(cfg.Cwd),
		home:            cleanOrEmpty(cfg.Home),
		dirs:            slices.Clone(cfg.AdditionalDirs),
		bypassAvailable: cfg.BypassAvailable || mode == ModeBypass,
		autoAvailable:   cfg.AutoAvailable || mode == ModeAuto,
		avoidPrompts:    cfg.AvoidPrompts,
		settingsFiles:   slices.Clone(cfg.SettingsFiles),
		sandbox:         cfg.Sandbox,
		fences:          cfg.Fences,
	}
	for _, p := range cfg.ProtectedPaths {
		c.protectedPaths = append(c.protectedPaths, filepath.Clean(p))
	}
	c.sandbox.ExcludedCommands = slices.Clone(cfg.Sandbox.ExcludedCommands)
	c.damage = DefaultDamageBudget
	if cfg.DamageBudget != nil {
		c.damage = *cfg.DamageBudget
	}
	c.internalRead = internalDirForms(cfg.InternalReadDirs)
	c.taint = cfg.Taint
	if c.taint == nil {
		c.taint = NewTaint()
	}
	for i := range c.dirs {
		c.dirs[i].Path = filepath.Clean(c.dirs[i].Path)
	}
	var errs []error
	// One backing array for the compiled copies: a context of thousands of rules is built
	// with a handful of allocations for them, not one per rule.
	store := slices.Clone(cfg.Rules)
	c.rules = make([]*Rule, 0, len(cfg.Rules))
	var batch compileBatch
	for i := range store {
		nr := &store[i]
		if err := nr.compile(&batch); err != nil {
			errs = append(errs, fmt.Errorf("rule %s: %w", cfg.Rules[i].Describe(), err))
			continue
		}
		c.rules = append(c.rules, nr)
	}
	c.rules = dedupRules(c.rules)
	c.reindex()
	secrets, err := compileSecrets(cfg.SecretFiles)
	c.secrets = secrets
	if err != nil {
		errs = append(errs, err)
	}
	return c, errors.Join(errs...)
}

func cleanOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Clean(p)
}

func (r *Rule) compile(batch *compileBatch) error {
	r.Root = cleanOrEmpty(r.Root)
	r.rootLower = foldPath(r.Root)
	if r.Behavior != Allow && r.Behavior != Ask && r.Behavior != Deny {
		return fmt.Errorf("invalid rule behavior %s", r.Behavior)
	}
	r.path = nil
	if r.Value.Content != "" && (r.Value.Tool == "Read" || r.Value.Tool == "Edit") {
		p, err := compilePathPattern(r.Value.Content, r.Behavior, batch)
		if err != nil {
			return err
		}
		r.path = p
	}
	return nil
}

// dedupRules drops exact repeats (same value, behaviour, source and root), keeping the first.
// Rules are found by a hash of those fields: a map keyed by the fields themselves costs more
// than the rest of building a context. Equal hashes are confirmed field by field; in the
// (practically never seen) case of two different rules with one hash, the kept rules are
// searched.
func dedupRules(rules []*Rule) []*Rule {
	seed := maphash.MakeSeed()
	return dedupRulesBy(rules, func(r *Rule) uint64 {
		// Three one-shot string hashes cost less than streaming the fields through a
		// maphash.Hash; the multipliers keep "Read(x)" and "Edit(x)" apart.
		h := maphash.String(seed, r.Value.Content)
		h = h*0x9e3779b97f4a7c15 ^ maphash.String(seed, r.Value.Tool)
		h = h*0x9e3779b97f4a7c15 ^ maphash.String(seed, r.Root)
		return h ^ uint64(r.Behavior)<<8 ^ uint64(r.Source)
	})
}

func dedupRulesBy(rules []*Rule, hashOf func(*Rule) uint64) []*Rule {
	same := func(a, b *Rule) bool {
		return a.Value == b.Value && a.Behavior == b.Behavior && a.Source == b.Source && a.Root == b.Root
	}
	// An open-addressing table of the hashes seen, each with the first kept rule that has
	// it: cheaper than a map for the thousands of rules of one context.
	size := 16
	for size < 2*len(rules) {
		size <<= 1
	}
	first := make([]int32, size) // 1 + the index in out of the first rule with hashes[i]
	hashes := make([]uint64, size)
	out := rules[:0]
	for _, r := range rules {
		h := hashOf(r)
		i := int(h & uint64(size-1))
		for first[i] != 0 && hashes[i] != h {
			i = (i + 1) & (size - 1)
		}
		if first[i] != 0 {
			if same(out[first[i]-1], r) || slices.ContainsFunc(out, func(k *Rule) bool { return same(k, r) }) {
				continue
			}
		} else {
			first[i], hashes[i] = int32(len(out)+1), h
		}
		out = append(out, r)
	}
	return out
}

// Memo returns the value stored under key, computing it with build the first time. It lets
// packages keep indexes derived from the rules (the Bash tool's rule index) once per set of
// rules instead of once per check; build must depend on nothing but the rules. Safe for
// concurrent use; key should be an unexported type of the calling package.
func (c *Context) Memo(key any, build func() any) any {
	if v, ok := c.memo.Load(key); ok {
		return v
	}
	v, _ := c.memo.LoadOrStore(key, build())
	return v
}

func (c *Context) reindex() {
	c.memo = &sync.Map{}
	c.dirForms = workingDirForms(c.WorkingDirs())
	c.homeForms = nil
	if c.home != "" {
		c.homeForms = workingDirForms([]string{c.home})
	}
	c.lower.cwd, c.lower.origCwd, c.lower.home = foldPath(c.cwd), foldPath(c.origCwd), foldPath(c.home)
	c.index = buildIndex(c.rules)
}

// buildIndex indexes rules by behaviour and tool.
func buildIndex(rules []*Rule) ruleIndex {
	var idx ruleIndex
	for i := range 4 {
		idx.toolWide[i] = map[string][]*Rule{}
		idx.server[i] = map[string][]*Rule{}
		idx.content[i] = map[string][]*Rule{}
	}
	for _, r := range rules {
		b := r.Behavior
		switch {
		case r.Value.Content != "":
			idx.content[b][r.Value.Tool] = append(idx.content[b][r.Value.Tool], r)
			if b == Allow && r.Value.Tool == "Edit" && opensConfigFolder(r) {
				idx.configAllow = append(idx.configAllow, r)
			}
		case IsMCPName(r.Value.Tool) && mcpGlob(r.Value.Tool):
			idx.mcpGlobs[b] = append(idx.mcpGlobs[b], r)
		case IsMCPName(r.Value.Tool):
			srv, tool := mcpServer(r.Value.Tool)
			if tool == "" || tool == "*" {
				idx.server[b][srv] = append(idx.server[b][srv], r)
			} else {
				idx.toolWide[b][r.Value.Tool] = append(idx.toolWide[b][r.Value.Tool], r)
			}
		default:
			idx.toolWide[b][r.Value.Tool] = append(idx.toolWide[b][r.Value.Tool], r)
		}
	}
	return idx
}

func (c *Context) clone() *Context {
	n := *c
	n.dirs = slices.Clone(c.dirs)
	n.rules = slices.Clone(c.rules)
	n.settingsFiles = slices.Clone(c.settingsFiles)
	return &n
}

// WithInternalReadDirs is the context with dirs as its [Config.InternalReadDirs], for a
// folder known only once the session is open.
func (c *Context) WithInternalReadDirs(dirs ...string) *Context {
	n := c.clone()
	n.internalRead = internalDirForms(dirs)
	return n
}

// Mode is the current permission mode.
func (c *Context) Mode() Mode { return c.mode }

// PrePlanMode is the mode to restore when plan mode is left.
func (c *Context) PrePlanMode() Mode { return c.prePlanMode }

// OriginalCwd is the directory the session started in.
func (c *Context) OriginalCwd() string { return c.origCwd }

// Cwd is the current working directory relative paths resolve against.
func (c *Context) Cwd() string { return c.cwd }

// Home is the user's home directory.
func (c *Context) Home() string { return c.home }

// BypassAvailable reports whether bypassPermissions may be entered.
func (c *Context) BypassAvailable() bool { return c.bypassAvailable }

// AutoAvailable reports whether auto mode may be entered.
func (c *Context) AutoAvailable() bool { return c.autoAvailable }

// AvoidPrompts reports whether no person can answer prompts in this context.
func (c *Context) AvoidPrompts() bool { return c.avoidPrompts }

// SettingsFiles are the protected settings files of every source.
func (c *Context) SettingsFiles() []string { return slices.Clone(c.settingsFiles) }

// AdditionalDirs are the working directories besides the original one.
func (c *Context) AdditionalDirs() []WorkingDir { return slices.Clone(c.dirs) }

// WorkingDirs are all working directories: the original cwd first, unless [Context.Within]
// narrowed them.
func (c *Context) WorkingDirs() []string {
	out := make([]string, 0, 1+len(c.dirs))
	if !c.narrowed {
		out = append(out, c.origCwd)
	}
	for _, d := range c.dirs {
		out = append(out, d.Path)
	}
	return out
}

// Rules returns every active rule in load order.
func (c *Context) Rules() []Rule {
	out := make([]Rule, len(c.rules))
	for i, r := range c.rules {
		out[i] = *r
	}
	return out
}

// ToolWideRule returns the first tool-wide rule of behaviour b that covers the tool, or nil.
func (c *Context) ToolWideRule(b Behavior, tool string) *Rule {
	if b < Allow || b > Deny {
		return nil
	}
	if rs := c.index.toolWide[b][tool]; len(rs) > 0 {
		return rs[0]
	}
	if IsMCPName(tool) {
		srv, _ := mcpServer(tool)
		if rs := c.index.server[b][srv]; len(rs) > 0 {
			return rs[0]
		}
		for _, r := range c.index.mcpGlobs[b] {
			if mcpGlobMatch(r.Value.Tool, tool) {
				return r
			}
		}
	}
	return nil
}

// ContentRules returns the content rules of behaviour b for a tool, in load order.
func (c *Context) ContentRules(b Behavior, tool string) []*Rule {
	if b < Allow || b > Deny {
		return nil
	}
	return c.index.content[b][tool]
}

// WithCwd returns a context whose relative paths resolve against dir.
func (c *Context) WithCwd(dir string) *Context {
	n := c.clone()
	n.cwd = filepath.Clean(dir)
	n.lower.cwd = foldPath(n.cwd)
	return n
}

// WithAvoidPrompts returns a context for a caller that cannot ask anyone.
func (c *Context) WithAvoidPrompts(v bool) *Context {
	n := c.clone()
	n.avoidPrompts = v
	return n
}

// WithMode returns a context in mode m without the transition bookkeeping; the auto-mode
// fast path uses it to ask "would acceptEdits allow this?".
func (c *Context) WithMode(m Mode) *Context {
	n := c.clone()
	n.mode = m
	return n
}

// ErrBypassUnavailable is returned when bypassPermissions is requested but not available.
var ErrBypassUnavailable = errors.New("bypassPermissions mode is not available in this session")

// Transition moves to mode to with Claude Code's bookkeeping: entering plan remembers the mode
// it came from (prePlanMode), leaving plan forgets it. bypassPermissions needs BypassAvailable.
// Auto mode's set-aside rules are not moved here: the engine leaves them out of every decision
// while auto is active (autoaside.go), however the context got there.
func (c *Context) Transition(to Mode) (*Context, error) {
	if to == ModeBypass && !c.bypassAvailable {
		return nil, ErrBypassUnavailable
	}
	if to == ModeAuto && !c.autoAvailable {
		return nil, errors.New("auto mode is not available in this session")
	}
	n := c.clone()
	from := c.mode
	switch {
	case to == ModePlan && from != ModePlan:
		n.prePlanMode = from
	case to != ModePlan:
		n.prePlanMode = ""
	}
	n.mode = to
	n.reindex()
	return n, nil
}

// ExitPlan leaves plan mode for the mode it was entered from (default if none).
func (c *Context) ExitPlan() (*Context, error) {
	to := c.prePlanMode
	if to == "" {
		to = ModeDefault
	}
	if to == ModeBypass && !c.bypassAvailable {
		to = ModeDefault
	}
	return c.Transition(to)
}

// dangerousAllowPrefixes are interpreters and runners whose allow rules would let auto mode's
// classifier be skipped entirely.
var dangerousAllowPrefixes = []string{"python", "python3", "python2", "node", "deno", "tsx", "ruby", "perl", "php", "lua",
	"npx", "bunx", "npm run", "yarn run", "pnpm run", "bun run", "bash", "sh", "ssh", "zsh", "fish", "eval", "exec", "env", "xargs", "sudo"}

// IsDangerousAllowRule reports whether Claude Code sets an allow rule aside in auto mode, by its
// text: tool-wide Bash, Bash rules for the interpreters and runners of its list, any Agent rule.
// Reins sets these aside and more (AutoGuard, bashrules.SetAsideInAuto).
func IsDangerousAllowRule(v RuleValue) bool {
	switch v.Tool {
	case "Agent":
		return true
	case "Bash":
	default:
		return false
	}
	if v.Content == "" {
		return true
	}
	for _, p := range dangerousAllowPrefixes {
		switch c := v.Content; {
		case c == p, c == p+":*", c == p+"*", c == p+" *", strings.HasPrefix(c, p+" -") && strings.HasSuffix(c, "*"):
			return true
		}
	}
	return false
}
