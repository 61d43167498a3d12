package bashrules

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reinsdev/reins/permission"
)

// The damage count: before a command runs, what it would delete or overwrite is counted —
// globs expanded, the folders it removes walked — and held against the session's damage
// budget. A command over the budget asks as a safety check, which no allow rule and no mode
// settles (docs/security.md, "Damage budgets"). The count is an upper bound where the
// command's own choice is not known (find -delete counts every file below its start paths),
// and a floor where it stopped at its bounds, which the decision treats as over budget.

// maxDamageEntries bounds the directory entries one decision's count looks at (a variable
// only so that a test can reach the bound with a small tree).
var maxDamageEntries = 20000

const (
	// maxDamageTime bounds the time one decision's count spends walking.
	maxDamageTime = 500 * time.Millisecond
	// maxDamagePaths is how many paths of each kind a report names.
	maxDamagePaths = 10
)

// regenerableDirs are dependency and build folders that a tool makes again: removed whole
// while git does not track them, their files are not counted against the budget.
var regenerableDirs = map[string]bool{
	"node_modules": true, "dist": true, "build": true, "target": true, ".next": true, ".nuxt": true, "out": true,
	".turbo": true, ".parcel-cache": true, ".svelte-kit": true, ".cache": true, "coverage": true, "__pycache__": true,
	".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true, ".tox": true, ".venv": true, "venv": true,
	".gradle": true, "bin": true, "obj": true, "_build": true, ".angular": true, "storybook-static": true,
}

// damageOp is one thing a command would destroy.
type damageOp uint8

const (
	opFile      damageOp = iota // a file, removed or overwritten when it exists
	opTree                      // a path removed with everything below it
	opOverTree                  // cp -r: the files below dst that src's files would overwrite
	opMissing                   // rsync --delete: the files below dst that src lacks
	opGitClean                  // git clean: untracked (and with x, ignored) files
	opGitChange                 // git checkout/restore/reset: tracked files' uncommitted changes
	opGitRm                     // git rm: the tracked files below the paths
	opGitStash                  // git stash push: destroys nothing, unless dropped (opGitDrop)
	opGitDrop                   // git stash drop
	opUnknown                   // what the command destroys is known only when it runs: why
	opOneFile                   // one file, whose name is known only when it runs: why
)

// damageTarget is one path a command would destroy, resolved.
type damageTarget struct {
	op  damageOp
	abs string
	src string // opOverTree, opMissing: the source folder ("" for a remote source: all of dst)
	dir string // the git ops: the folder the command runs in
	// git options: clean's -d, -x, -X (stash's -a); rm's -r (dirs); a change op's staged (the
	// index is discarded too); stash's -u (untracked).
	dirs, ignored, onlyIgnored, staged, untracked bool
	paths                                         []string // the git ops' pathspecs (absolute)
	// names, for a find's selection, is the -name pattern the files match (fold: -iname); nil
	// counts every file. whole: a folder that matches is removed with everything below it.
	names       []string
	fold, whole bool
	// why says why an opUnknown (or an unpaired opGitDrop) cannot be counted.
	why string
	// feed marks the files fed to the command at run time, destroyed as op: src is the
	// placeholder that stands for them (see damagefeed.go).
	feed bool
	// one marks an unknown word that names one file when it runs (Word.OneField): destroyed
	// as opFile it is counted as one file (opOneFile), unless something may run it more than
	// once (see once).
	one bool
}

// damageCounter counts what one analysed command line would destroy.
type damageCounter struct {
	ctx     context.Context
	rec     *recorder
	targets []damageTarget
	git     gitView
	d       permission.Damage
	seen    map[string]bool
	left    int
	start   time.Time
}

// countDamage counts the damage of the analysis a, its paths resolved as ps resolves them, or
// returns nil when no command of it deletes or overwrites anything.
func countDamage(a *Analysis, ps *pathChecks) *permission.Damage {
	// Most command lines destroy nothing: they are settled before anything is allocated.
	var targets []damageTarget
	for _, c := range a.Commands {
		if c.Speculative || c.Kind != KindCall || len(c.Argv) == 0 {
			continue
		}
		name, _ := commandName(c.Argv[0])
		if destroyer(name) == nil {
			continue
		}
		for _, pc := range ps.cwds(c.Where) {
			targets = append(targets, once(c.Where, c.Via == "" && !c.ExtraArgs, commandDamage(a, pc, c, name))...)
		}
	}
	for _, rd := range a.Redirects {
		if rd.Kind != RedirOut || strings.Contains(rd.Op, ">>") || exemptOutput(rd.Target) {
			continue
		}
		for _, pc := range ps.cwds(rd.Where) {
			targets = append(targets, once(rd.Where, true, perValue(a, pc, rd.ForVar, []Word{rd.Target}, func(ws []Word) []damageTarget {
				return operandTargets(pc, opFile, ws)
			}))...)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	dc := &damageCounter{ctx: ps.ctx, rec: ps.rec, targets: pairStashes(targets)}
	// A removal the dangerous-removal check stops (the root, a top-level folder, the home,
	// a parent of a working directory) asks already: walking it would only cost.
	dc.targets = slices.DeleteFunc(dc.targets, func(t damageTarget) bool {
		return t.op != opFile && t.abs != "" && dangerous(ps.pc, ps.pc, t.abs, true) != ""
	})
	if len(dc.targets) == 0 {
		return nil
	}
	dc.askGit()
	dc.left, dc.start = maxDamageEntries, time.Now()
	if len(dc.targets) > 1 {
		dc.seen = map[string]bool{} // targets may overlap (rm -rf a a/b; rm x > x)
	}
	for _, t := range dc.targets {
		dc.count(t)
	}
	if dc.d.Files == 0 && len(dc.d.Regenerable) == 0 && dc.d.Unknown == "" && !dc.d.AtLeast {
		return nil
	}
	b := ps.pc.DamageBudget()
	dc.d.Budget = b
	dc.d.Over = dc.d.AtLeast || dc.d.Unknown != "" || dc.d.Files > b.Files || dc.d.Bytes > b.Bytes
	return &dc.d
}

// askGit asks git once per folder the targets are in.
func (dc *damageCounter) askGit() {
	g := gitFrom(dc.ctx)
	byDir := map[string][]string{}
	var dirs []string
	add := func(dir, p string) {
		if _, ok := byDir[dir]; !ok {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], p)
	}
	for _, t := range dc.targets {
		switch t.op {
		case opGitClean, opGitChange, opGitRm:
			for _, p := range t.paths {
				add(t.dir, p)
			}
		case opUnknown, opOneFile, opGitStash, opGitDrop:
		default:
			add(filepath.Dir(t.abs), t.abs)
		}
	}
	for _, dir := range dirs {
		st, err := g.Status(dc.ctx, dir, byDir[dir])
		dc.git.reports = append(dc.git.reports, newGitReport(dir, st, err))
	}
}

// report returns the git report that answered for dir.
func (dc *damageCounter) report(dir string) *gitReport {
	for i := range dc.git.reports {
		if dc.git.reports[i].dir == dir {
			return &dc.git.reports[i]
		}
	}
	return nil
}

// count counts one target.
func (dc *damageCounter) count(t damageTarget) {
	switch t.op {
	case opFile:
		if fi, err := os.Lstat(t.abs); err == nil && !fi.IsDir() {
			dc.file(t.abs, fi)
		}
	case opTree:
		if t.names != nil {
			dc.matching(t)
			return
		}
		dc.tree(t.abs)
	case opOverTree:
		dc.overTree(t.src, t.abs)
	case opMissing:
		dc.missing(t.src, t.abs)
	case opGitClean:
		dc.gitClean(t)
	case opGitChange:
		dc.gitChange(t)
	case opGitRm:
		dc.gitRm(t)
	case opUnknown, opGitDrop:
		dc.unknown(t.why)
	case opOneFile:
		dc.d.Files++
		dc.rec.note("bash: damage", "one file", t.why+": counted as one file of a size not known before it runs")
	}
}

// once keeps a one-file target (opOneFile) only where the command or redirect runs once per
// command line: in a loop, a function, a script another command runs, or a command that
// find -exec or xargs starts, the same unknown word may name another file each time, so
// what it destroys cannot be counted.
func once(wh where, direct bool, ts []damageTarget) []damageTarget {
	if direct && !wh.Loop && !wh.Fn && !wh.Script {
		return ts
	}
	for i := range ts {
		if ts[i].op == opOneFile {
			ts[i].op = opUnknown
		}
	}
	return ts
}

// matching counts the files below t.abs whose name matches t.names[0] and, when t.whole,
// everything below a folder whose name matches.
func (dc *damageCounter) matching(t damageTarget) {
	match := func(name string) bool {
		pat := t.names[0]
		if t.fold {
			name, pat = strings.ToLower(name), strings.ToLower(pat)
		}
		ok, _ := filepath.Match(pat, name)
		return ok
	}
	if !t.whole {
		dc.walk(t.abs, func(p string, fi fs.FileInfo) {
			if match(fi.Name()) {
				dc.file(p, fi)
			}
		})
		return
	}
	err := filepath.WalkDir(t.abs, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if p != t.abs || !os.IsNotExist(err) {
				dc.unknown(fmt.Sprintf("%s cannot be read: %v", p, err))
			}
			return nil
		case !dc.spend():
			return filepath.SkipAll
		case !match(d.Name()):
			return nil
		case d.IsDir():
			dc.walk(p, func(q string, fi fs.FileInfo) { dc.file(q, fi) })
			return filepath.SkipDir
		}
		if fi, err := d.Info(); err == nil {
			dc.file(p, fi)
		}
		return nil
	})
	if err != nil {
		dc.unknown(err.Error())
	}
}

// tree counts a path removed whole: a file, or a folder with everything below it, except a
// dependency or build folder git does not track.
func (dc *damageCounter) tree(root string) {
	fi, err := os.Lstat(root)
	if err != nil {
		return
	}
	if !fi.IsDir() {
		dc.file(root, fi)
		return
	}
	if regenerableDirs[filepath.Base(root)] {
		if s := dc.git.state(root); s == gitUntracked || s == gitIgnored {
			dc.rec.note("bash: damage", "not counted", root+": a dependency or build folder git does not track")
			dc.d.Regenerable = append(dc.d.Regenerable, root)
			return
		}
	}
	dc.walk(root, func(p string, fi fs.FileInfo) { dc.file(p, fi) })
}

// walk calls fn for every entry below root that is not a folder, within the count's bounds.
func (dc *damageCounter) walk(root string, fn func(string, fs.FileInfo)) {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return nil
			}
			dc.unknown(fmt.Sprintf("%s cannot be read: %v", p, err))
			return nil
		}
		if !dc.spend() {
			return filepath.SkipAll
		}
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone since it was listed
		}
		fn(p, fi)
		return nil
	})
	if err != nil {
		dc.unknown(err.Error())
	}
}

// spend takes one entry from the count's bounds, or marks the count a floor.
func (dc *damageCounter) spend() bool {
	if dc.d.AtLeast {
		return false
	}
	dc.left--
	if dc.left < 0 || (dc.left%1024 == 0 && time.Since(dc.start) > maxDamageTime) {
		dc.d.AtLeast = true
		dc.rec.note("bash: damage", "bound", fmt.Sprintf("stopped after %d entries: the command destroys at least what was counted", maxDamageEntries-dc.left))
		return false
	}
	return true
}

func (dc *damageCounter) unknown(why string) {
	if dc.d.Unknown == "" {
		dc.d.Unknown = why
	}
}

// file counts one file (anything but a folder), once.
func (dc *damageCounter) file(p string, fi fs.FileInfo) {
	if dc.seen != nil {
		if dc.seen[p] {
			return
		}
		dc.seen[p] = true
	}
	dc.d.Files++
	if fi.Mode().IsRegular() {
		dc.d.Bytes += fi.Size()
	}
	if len(dc.d.Paths) < maxDamagePaths {
		dc.d.Paths = append(dc.d.Paths, p)
	}
	switch dc.git.state(p) {
	case gitUntracked:
		dc.d.Untracked++
		if len(dc.d.UntrackedPaths) < maxDamagePaths {
			dc.d.UntrackedPaths = append(dc.d.UntrackedPaths, p)
		}
	case gitIgnored:
		dc.d.Ignored++
		if len(dc.d.IgnoredPaths) < maxDamagePaths {
			dc.d.IgnoredPaths = append(dc.d.IgnoredPaths, p)
		}
	}
}

// overTree counts the files below dst that a recursive copy of src would overwrite.
func (dc *damageCounter) overTree(src, dst string) {
	if !isDir(src) || !isDir(dst) {
		return
	}
	dc.walk(src, func(p string, _ fs.FileInfo) {
		rel, _ := filepath.Rel(src, p)
		q := filepath.Join(dst, rel)
		if fi, err := os.Lstat(q); err == nil && !fi.IsDir() {
			dc.file(q, fi)
		}
	})
}

// missing counts the files below dst that src lacks (rsync --delete); with no local source,
// every file below dst.
func (dc *damageCounter) missing(src, dst string) {
	if !isDir(dst) {
		return
	}
	dc.walk(dst, func(p string, fi fs.FileInfo) {
		if src != "" {
			rel, _ := filepath.Rel(dst, p)
			if _, err := os.Lstat(filepath.Join(src, rel)); err == nil {
				return
			}
		}
		dc.file(p, fi)
	})
}

// gitClean counts what git clean removes: untracked files (folders with -d), ignored ones
// with -x, only ignored ones with -X.
func (dc *damageCounter) gitClean(t damageTarget) {
	r := dc.report(t.dir)
	if r == nil || r.err != nil {
		dc.unknown(fmt.Sprintf("git clean in %s: %v", t.dir, reportErr(r)))
		return
	}
	var lists [][]string
	if !t.onlyIgnored {
		lists = append(lists, r.st.Untracked)
	}
	if t.ignored || t.onlyIgnored {
		lists = append(lists, r.st.Ignored)
	}
	for _, list := range lists {
		for _, p := range list {
			if folder, ok := strings.CutSuffix(p, "/"); ok {
				if t.dirs {
					dc.tree(folder)
				}
				continue
			}
			if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
				dc.file(p, fi)
			}
		}
	}
	if r.st.Truncated {
		dc.d.AtLeast = true
	}
}

// gitChange counts the tracked files whose uncommitted changes git checkout, restore or
// reset --hard would discard.
func (dc *damageCounter) gitChange(t damageTarget) {
	r := dc.report(t.dir)
	if r == nil || r.err != nil {
		dc.unknown(fmt.Sprintf("git in %s: %v", t.dir, reportErr(r)))
		return
	}
	for _, ch := range r.st.Changed {
		if !(ch.Work || (t.staged && ch.Staged)) || !slices.ContainsFunc(t.paths, func(p string) bool { return within(ch.Path, p) }) {
			continue
		}
		if fi, err := os.Lstat(ch.Path); err == nil && !fi.IsDir() {
			dc.file(ch.Path, fi)
		}
	}
	if r.st.Truncated {
		dc.d.AtLeast = true
	}
}

// gitRm counts the tracked files git rm removes from the work tree: the paths named, and
// with -r everything below them that git tracks.
func (dc *damageCounter) gitRm(t damageTarget) {
	r := dc.report(t.dir)
	if r == nil || r.err != nil {
		dc.unknown(fmt.Sprintf("git rm in %s: %v", t.dir, reportErr(r)))
		return
	}
	tracked := func(p string, fi fs.FileInfo) {
		if s := dc.git.state(p); s != gitUntracked && s != gitIgnored && !strings.Contains(p, "/.git/") {
			dc.file(p, fi)
		}
	}
	for _, p := range t.paths {
		if p == "/" {
			p = r.st.Root // the whole repository
		}
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case !fi.IsDir():
			tracked(p, fi)
		case t.dirs:
			dc.walk(p, tracked)
		}
	}
	if r.st.Truncated {
		dc.d.AtLeast = true
	}
}

func reportErr(r *gitReport) error {
	if r == nil {
		return errNoGit
	}
	return r.err
}

// damageResult writes the damage count's trace line and, over budget, returns the safety
// ask.
func damageResult(rec *recorder, d *permission.Damage) (result, bool) {
	if d == nil {
		return result{}, false
	}
	detail := DamageWords(d)
	if !d.Over {
		rec.note("bash: damage", "within budget", detail)
		return result{}, false
	}
	rec.note("bash: damage", "ask", detail)
	msg := fmt.Sprintf("This command would destroy %s, over the damage budget (%d files, %s); it needs your explicit approval and cannot be allowed by rules or modes.",
		detail, d.Budget.Files, byteWords(d.Budget.Bytes))
	if d.Unknown != "" {
		msg = fmt.Sprintf("This command would destroy %s; what cannot be counted is held as over the damage budget (%d files, %s): it needs your explicit approval and cannot be allowed by rules or modes.",
			detail, d.Budget.Files, byteWords(d.Budget.Bytes))
	}
	// The reason carries the count: it is what the SDK's can_use_tool (decision_reason) and
	// a denial's message show.
	return result{v: vSafety, d: askDecision(msg, permission.ReasonSafetyCheck, "over the damage budget: "+detail)}, true
}

// damageWords says what a count found: "at least 120 files (3.1 MB), 2 untracked, 1
// ignored (.env)".
func DamageWords(d *permission.Damage) string {
	var b strings.Builder
	if d.Files == 0 && d.Unknown != "" && !d.AtLeast {
		b.WriteString("files it cannot count before it runs: " + d.Unknown)
		if len(d.Regenerable) > 0 {
			fmt.Fprintf(&b, "; not counted, rebuilt by tools: %s", strings.Join(d.Regenerable, ", "))
		}
		return b.String()
	}
	if d.AtLeast {
		b.WriteString("at least ")
	}
	fmt.Fprintf(&b, "%d %s (%s)", d.Files, plural(d.Files, "file", "files"), byteWords(d.Bytes))
	if d.Untracked > 0 {
		fmt.Fprintf(&b, ", %d untracked", d.Untracked)
	}
	if d.Ignored > 0 {
		fmt.Fprintf(&b, ", %d ignored", d.Ignored)
		names := make([]string, 0, 3)
		for _, p := range d.IgnoredPaths[:min(3, len(d.IgnoredPaths))] {
			names = append(names, filepath.Base(p))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(names, ", "))
	}
	if d.Unknown != "" {
		fmt.Fprintf(&b, "; not fully counted: %s", d.Unknown)
	}
	if len(d.Regenerable) > 0 {
		fmt.Fprintf(&b, "; not counted, rebuilt by tools: %s", strings.Join(d.Regenerable, ", "))
	}
	return b.String()
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// byteWords writes a size in bytes for people.
func byteWords(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// damage counts the command's damage unless a part is already denied or the analysis was
// cut short (the command asks for that anyway, and its commands are not all known).
func damage(a *Analysis, parts []part, ps *pathChecks) *permission.Damage {
	if a.Truncated {
		return nil
	}
	for _, p := range parts {
		if p.res.v == vDeny {
			return nil
		}
	}
	return countDamage(a, ps)
}
