package permission

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNULByte is returned for paths that contain a NUL byte.
var ErrNULByte = errors.New("path contains a NUL byte")

// ResolvePath turns a path from a tool input into a clean absolute path: "~" and "~/x" expand
// to the home directory, relative paths resolve against the current working directory, and
// ".." is resolved before any check sees the path. Other tilde forms stay literal.
//
// On Windows "~\x" is home too, and a path rooted without a drive is not relative: Git Bash's
// "/c/x" is C:\x and any other "\x" or "/x" is on the working directory's drive
// (windowsRooted), as the shell and the system open them.
func (c *Context) ResolvePath(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", ErrNULByte
	}
	switch {
	case p == "~":
		p = c.home
	case strings.HasPrefix(p, "~/"), filepath.Separator == '\\' && strings.HasPrefix(p, `~\`):
		return joinClean(c.home, p[2:]), nil
	case !filepath.IsAbs(p):
		if filepath.Separator == '\\' {
			if w, ok := windowsRooted(c.cwd, p); ok {
				return filepath.Clean(w), nil
			}
		}
		return joinClean(c.cwd, p), nil
	}
	return filepath.Clean(p), nil
}

// joinClean is filepath.Clean(filepath.Join(dir, p)) for a dir that is already clean (the
// context's cwd and home are cleaned when set). Join cleans what it returns, except that it
// returns "" where Clean says "."; and a single plain name under a clean directory needs no
// cleaning at all, which is the usual argument of a command (src, test, README.md), also when
// written ./src (or ./..., a Go package pattern).
func joinClean(dir, p string) string {
	if filepath.Separator == '/' && dir != "" && dir != "." {
		name := p
		for strings.HasPrefix(name, "./") {
			name = name[2:]
		}
		if plainName(name) {
			if dir == "/" {
				return "/" + name
			}
			return dir + "/" + name
		}
	}
	if j := filepath.Join(dir, p); j != "" {
		return j
	}
	return "."
}

// plainName reports a single path element that cleaning leaves alone: not empty, not . or ..,
// without a separator.
func plainName(p string) bool {
	return p != "" && p != "." && p != ".." && strings.IndexByte(p, '/') < 0
}

// maxSymlinkHops bounds symlink chains, like the kernel's own loop limit.
const maxSymlinkHops = 40

// pathForms returns the path and every form it takes through symlinks: each hop of a chain
// ending in the path, and the fully resolved path (for a path that does not exist yet, its
// deepest existing ancestor resolved). A check must hold for all of them.
func pathForms(ctx context.Context, p string) []pathForm {
	if ok, r := plainPathStat(ctx, p); ok {
		// No symlink anywhere: the path is its only form (what the walk below finds, with
		// fewer system calls).
		return []pathForm{{path: p, lower: foldPath(p), dir: r.mode.IsDir(), stat: r.fileStat, stated: r.err == nil}}
	}
	return walkForms(p)
}

// walkForms is pathForms the long way: every hop of a symlink chain, then the resolved path.
func walkForms(p string) []pathForm {
	forms := []pathForm{{path: p}}
	add := func(f string) {
		f = filepath.Clean(f)
		for _, g := range forms {
			if g.path == f {
				return
			}
		}
		forms = append(forms, pathForm{path: f})
	}
	cur := p
	for range maxSymlinkHops {
		target, err := os.Readlink(cur)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(cur), target)
		}
		cur = filepath.Clean(target)
		add(cur)
		if r, err := resolveExisting(cur); err == nil {
			add(r)
		}
	}
	if r, err := resolveExisting(p); err == nil {
		add(r)
	}
	// The file the kernel reaches: a hop's relative target read from its link's directory
	// once that directory's own symlinks are resolved, where the hops above join it to the
	// link's path as written (a ".." after a symlinked directory names the target's parent).
	add(ResolveAsKernel("/", p))
	for i := range forms {
		forms[i].dir = isDir(forms[i].path)
		forms[i].lower = foldPath(forms[i].path)
	}
	return forms
}

// plainPath reports whether the clean absolute path p has no symlink in it: every element a
// directory but the last, none a symlink, the last existing or not (ENOENT). For such a path
// Readlink fails and resolving it (EvalSymlinks, or for a missing last element EvalSymlinks
// of the parent) gives p itself, after the same Lstat of each element made here. It also
// reports whether p is a directory. Anything else (a symlink, a missing element, an error)
// returns false, and the caller takes the full walk. The directories above p are proven
// plain by plainDir (one openat2 where the kernel has it, an Lstat of each otherwise).
func plainPath(ctx context.Context, p string) (ok, dir bool) {
	ok, r := plainPathStat(ctx, p)
	return ok, ok && r.mode.IsDir()
}

// plainPathStat is plainPath with the Lstat of p it made (for a missing p, its error), so
// that the write check's look at the file's links costs no second one.
func plainPathStat(ctx context.Context, p string) (bool, lstatResult) {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || filepath.Separator != '/' {
		return false, lstatResult{}
	}
	sc := statCacheOf(ctx)
	if p != "/" && !plainDir(sc, filepath.Dir(p)) {
		return false, lstatResult{}
	}
	r := lstatCached(sc, p)
	switch {
	case errors.Is(r.err, fs.ErrNotExist):
		// A file to be created in a plain directory: Readlink fails, and resolving the
		// deepest existing ancestor (the parent, itself) gives p back.
		return true, r
	case r.err != nil || r.mode&fs.ModeSymlink != 0:
		return false, lstatResult{}
	}
	return true, r
}

// pathForm is one form of a checked path; whether it is a directory is looked up once, since
// directory-only patterns ("build/") need it for every rule.
type pathForm struct {
	path  string
	lower string
	dir   bool
	// link marks another name of the file, found by the hard-link search (hardlink.go).
	link bool
	// stat is the form's Lstat when stated is set (a path without symlinks has had one).
	stat   fileStat
	stated bool
}

// resolveExisting resolves symlinks in p; for a path that does not exist it resolves the
// deepest existing ancestor and appends the rest.
func resolveExisting(p string) (string, error) {
	if r, err := evalLinks(p); err == nil {
		return r, nil
	}
	dir, rest := p, ""
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no existing ancestor of %s", p)
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
		if r, err := evalLinks(dir); err == nil {
			return filepath.Join(r, rest), nil
		}
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// InWorkingDirs reports whether every form of abs lies inside a working directory.
func (c *Context) InWorkingDirs(abs string) bool {
	return c.allInWorkingDirs(pathForms(context.Background(), abs))
}

func (c *Context) allInWorkingDirs(forms []pathForm) bool {
	_, ok := allUnder(forms, c.dirForms)
	return ok
}

// internalReadDir returns an internal readable folder holding the path when every form of it
// is inside one, or "".
func (c *Context) internalReadDir(forms []pathForm) string {
	d, _ := allUnder(forms, c.internalRead)
	return d
}

// allUnder reports whether every form of a path is inside one of dirs (lower-cased forms), and
// returns the one holding the first form.
func allUnder(forms []pathForm, dirs []string) (string, bool) {
	holder := ""
	for i, f := range forms {
		j := slices.IndexFunc(dirs, func(d string) bool {
			_, ok := relUnder(d, f.lower)
			return ok
		})
		if j < 0 {
			return "", false
		}
		if i == 0 {
			holder = dirs[j]
		}
	}
	return holder, true
}

// internalDirForms lists the absolute dirs as given and with symlinks resolved; a folder
// made later resolves through its deepest existing ancestor. Relative dirs are dropped:
// nothing internal is relative to where the person stands.
func internalDirForms(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		out = append(out, foldPath(d))
		if r, err := resolveExisting(d); err == nil && r != d {
			out = append(out, foldPath(r))
		}
	}
	return out
}

// workingDirForms lists every working directory as given and with symlinks resolved.
func workingDirForms(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		out = append(out, foldPath(d))
		if r, err := evalLinks(d); err == nil && r != d {
			out = append(out, foldPath(r))
		}
	}
	return out
}

// matchAny returns the first rule of rules that covers any of the forms.
func (c *Context) matchAny(rules []*Rule, forms []pathForm) *Rule {
	for _, r := range rules {
		for _, f := range forms {
			if r.matchPath(c, f) {
				return r
			}
		}
	}
	return nil
}

// matchAll returns the first rule of rules that covers every form.
func (c *Context) matchAll(rules []*Rule, forms []pathForm) *Rule {
	for _, r := range rules {
		all := true
		for _, f := range forms {
			if !r.matchPath(c, f) {
				all = false
				break
			}
		}
		if all {
			return r
		}
	}
	return nil
}

// CheckRead is the read check shared by Read, Grep, Glob and Bash read arguments. p may be
// relative (to the current working directory).
func (c *Context) CheckRead(ctx context.Context, p string) Decision {
	abs, err := c.ResolvePath(p)
	if err != nil {
		Notef(ctx, "read check", "deny", "%v", err)
		return Decision{Behavior: Deny, Message: fmt.Sprintf("Cannot read %q: %v.", p, err), Reason: &Reason{Type: ReasonOther, Detail: err.Error()}}
	}
	if why := suspiciousPath(p); why != "" {
		Notef(ctx, "read check", "ask", "suspicious path: %s", why)
		return Decision{Behavior: Ask, BlockedPath: abs,
			Message: fmt.Sprintf("Reins requested permissions to read from %s, which contains a suspicious path pattern (%s) that requires manual approval.", p, why),
			Reason:  &Reason{Type: ReasonSafetyCheck, Detail: why}}
	}
	forms := pathForms(ctx, abs)
	if r := c.pathRules(Deny, "Read").matchAny(c, forms); r != nil {
		NoteRule(ctx, "read check: Read deny rule", r, "deny")
		return Decision{Behavior: Deny, BlockedPath: abs, Message: "Permission to read " + abs + " has been denied.", Reason: &Reason{Type: ReasonRule, Rule: r}}
	}
	if r := c.pathRules(Ask, "Read").matchAny(c, forms); r != nil {
		NoteRule(ctx, "read check: Read ask rule", r, "ask")
		return Decision{Behavior: Ask, BlockedPath: abs, Message: "Reins requested permissions to read from " + abs + ", but you haven't granted it yet.", Reason: &Reason{Type: ReasonRule, Rule: r}}
	}
	if d := c.internalReadDir(forms); d != "" {
		Notef(ctx, "read check", "allow", "inside the internal folder %s (saved tool results)", d)
		return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonOther, Detail: "internal folder " + d}}
	}
	if c.allInWorkingDirs(forms) {
		Notef(ctx, "read check", "allow", "inside the working directories")
		return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonWorkingDir, Detail: "inside the working directories"}}
	}
	// Outside the working directories, a path the write check would allow may be read too.
	if w := c.checkWrite(context.Background(), abs, forms); w.Behavior == Allow {
		Notef(ctx, "read check", "allow", "edit access implies read access")
		return Decision{Behavior: Allow, Reason: w.Reason}
	}
	if r := c.pathRules(Allow, "Read").matchAll(c, forms); r != nil {
		NoteRule(ctx, "read check: Read allow rule", r, "allow")
		return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonRule, Rule: r}}
	}
	if d, ok := c.readFence(ctx, abs); ok {
		return d
	}
	Notef(ctx, "read check", "ask", "%s is outside the working directories", abs)
	return Decision{Behavior: Ask, BlockedPath: abs,
		Message: "Reins requested permissions to read from " + abs + ", but you haven't granted it yet.",
		Reason:  &Reason{Type: ReasonWorkingDir, Detail: "outside the working directories"},
		Suggestions: []Update{{Type: AddRules, Destination: SourceSession, Behavior: Allow,
			Rules: []RuleValue{{Tool: "Read", Content: "/" + slashPath(dirOf(abs)) + "/**"}}}},
	}
}

func dirOf(abs string) string {
	if isDir(abs) {
		return abs
	}
	return filepath.Dir(abs)
}

// CheckWrite is the write check shared by Edit, Write, NotebookEdit and Bash write targets.
func (c *Context) CheckWrite(ctx context.Context, p string) Decision {
	abs, err := c.ResolvePath(p)
	if err != nil {
		Notef(ctx, "write check", "deny", "%v", err)
		return Decision{Behavior: Deny, Message: fmt.Sprintf("Cannot write %q: %v.", p, err), Reason: &Reason{Type: ReasonOther, Detail: err.Error()}}
	}
	if why := suspiciousPath(p); why != "" {
		Notef(ctx, "write check", "ask", "suspicious path: %s", why)
		return Decision{Behavior: Ask, BlockedPath: abs,
			Message: fmt.Sprintf("Reins requested permissions to write to %s, which contains a suspicious path pattern (%s) that requires manual approval.", p, why),
			Reason:  &Reason{Type: ReasonSafetyCheck, Detail: why}}
	}
	return c.checkWrite(ctx, abs, pathForms(ctx, abs))
}

func (c *Context) checkWrite(ctx context.Context, abs string, forms []pathForm) Decision {
	// A file with several names is written under each (hardlink.go): the names found are
	// forms of the path like a symlink's, and names not found keep it from every allow.
	hl := c.hardLinksOf(ctx, forms)
	missing := hl != nil && hl.missing() > 0
	if hl != nil {
		forms = hl.linkForms(forms)
		Notef(ctx, "write check: hard links", "", "%d names, %d found", hl.links, len(hl.names))
	}
	for _, tool := range [...]string{"Edit", "Read"} {
		if r := c.pathRules(Deny, tool).matchAny(c, forms); r != nil {
			NoteRule(ctx, "write check: "+tool+" deny rule", r, "deny")
			return Decision{Behavior: Deny, BlockedPath: abs, Message: "Permission to edit " + abs + " has been denied.", Reason: &Reason{Type: ReasonRule, Rule: r}}
		}
	}
	// A session rule may open the config folder to edits before the protected-path check, as
	// in Claude Code, but not past an Edit ask rule: deny beats ask beats allow wherever both
	// match (docs/deviations.md).
	if d, ok := c.writeFence(ctx, abs, forms, missing); ok {
		return d
	}
	if r := c.sessionConfigAllow(forms); r != nil && !missing && c.pathRules(Ask, "Edit").matchAny(c, forms) == nil {
		NoteRule(ctx, "write check: session rule for the config folder", r, "allow")
		return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonRule, Rule: r}}
	}
	if d, ok := c.protectedWrite(ctx, abs, forms, hl); ok {
		return d
	}
	if r := c.pathRules(Ask, "Edit").matchAny(c, forms); r != nil {
		NoteRule(ctx, "write check: Edit ask rule", r, "ask")
		return Decision{Behavior: Ask, BlockedPath: abs, Message: "Reins requested permissions to write to " + abs + ", but you haven't granted it yet.", Reason: &Reason{Type: ReasonRule, Rule: r}}
	}
	inside := !missing && c.allInWorkingDirs(forms)
	// Plan mode is for planning: neither the acceptEdits shortcut nor Edit allow rules let a
	// write through (Claude Code 2.1.88 let Edit allow rules through; fixed in 2.1.136).
	if c.mode != ModePlan && !missing {
		if c.mode == ModeAcceptEdits && inside {
			Notef(ctx, "write check", "allow", "acceptEdits mode, inside the working directories")
			return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonMode, Mode: ModeAcceptEdits}}
		}
		if r := c.pathRules(Allow, "Edit").matchAll(c, forms); r != nil {
			NoteRule(ctx, "write check: Edit allow rule", r, "allow")
			return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonRule, Rule: r}}
		}
	}
	d := Decision{Behavior: Ask, BlockedPath: abs,
		Message: "Reins requested permissions to write to " + abs + ", but you haven't granted it yet.",
		Reason:  &Reason{Type: ReasonWorkingDir, Detail: "no rule or mode allows this write"}}
	switch {
	case missing:
		// Neither acceptEdits nor a new working directory would let this write through.
		d.Reason.Detail = hl.missingDetail(abs)
		Notef(ctx, "write check", "ask", "%s", d.Reason.Detail)
		return d
	case !inside:
		d.Reason.Detail = "outside the working directories"
	}
	if c.mode == ModeDefault || c.mode == ModePlan {
		d.Suggestions = append(d.Suggestions, Update{Type: SetMode, Destination: SourceSession, Mode: ModeAcceptEdits})
	}
	if !inside {
		d.Suggestions = append(d.Suggestions, Update{Type: AddDirectories, Destination: SourceSession, Directories: []string{dirOf(abs)}})
	}
	Notef(ctx, "write check", "ask", "%s", d.Reason.Detail)
	return d
}

// protectedWrite is the safety check of a write: a form (or another name of the file) that
// is a protected path, or a file with names the search could not look for. Both ask in every
// mode, bypassPermissions included.
func (c *Context) protectedWrite(ctx context.Context, abs string, forms []pathForm, hl *hardLinks) (Decision, bool) {
	for _, f := range forms {
		why := c.protectedPath(f.path)
		if why == "" {
			continue
		}
		msg := "Reins requested permissions to edit " + abs + " which is a sensitive file."
		if f.link {
			why = fmt.Sprintf("a hard link to %s: %s", f.path, why)
			msg = "Reins requested permissions to edit " + abs + ", a hard link to the sensitive file " + f.path + "."
		}
		Notef(ctx, "write check: protected path", "ask", "%s: %s", f.path, why)
		return Decision{Behavior: Ask, BlockedPath: abs, Message: msg,
			Reason: &Reason{Type: ReasonSafetyCheck, Detail: why, ClassifierApprovable: true}}, true
	}
	if hl != nil && hl.missing() > 0 && !hl.complete {
		why := hl.missingDetail(abs)
		Notef(ctx, "write check: hard links", "ask", "%s", why)
		return Decision{Behavior: Ask, BlockedPath: abs,
			Message: "Reins requested permissions to edit " + abs + ", which has other names Reins could not all find.",
			Reason:  &Reason{Type: ReasonSafetyCheck, Detail: why}}, true
	}
	return Decision{}, false
}

// sessionConfigAllow finds a session rule that opens a config folder (.claude or .reins) to
// edits. Only session rules can: a rule in a file must never pre-approve edits to settings.
func (c *Context) sessionConfigAllow(forms []pathForm) *Rule {
	for _, r := range c.index.configAllow {
		if c.matchAll([]*Rule{r}, forms) != nil {
			return r
		}
	}
	return nil
}

// opensConfigFolder reports whether an Edit allow rule is one that may open a config folder:
// a session rule for everything under .claude or .reins in the project or the home directory.
func opensConfigFolder(r *Rule) bool {
	if r.Source != SourceSession || strings.Contains(r.Value.Content, "..") || !strings.HasSuffix(r.Value.Content, "/**") {
		return false
	}
	for _, prefix := range [...]string{"/.claude/", "~/.claude/", "/.reins/", "~/.reins/"} {
		if strings.HasPrefix(r.Value.Content, prefix) {
			return true
		}
	}
	return false
}
