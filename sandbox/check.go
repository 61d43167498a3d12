package sandbox

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Bounds of what is kept of the existing protected paths to restore them: a protected folder
// can be large (.idea, .yarn), and a copy is taken before every command.
const (
	maxSnapshotEntries = 512
	maxSnapshotFile    = 1 << 20
	maxSnapshotBytes   = 8 << 20
)

// guard is one command's check: the protected paths as they were before it, and when it
// started.
type guard struct {
	s     *Sandbox
	spec  *Spec
	start int64 // in ns, on the clock the file system stamps changes with
	n     int   // the command's number in the session, for the quarantine's folders
	snaps []*snapshot
	// who made the changes the lines report; pre are what settleBetween found before
	who string
	pre []string
}

// snapshot is one existing protected path as it was: its entries by their path relative to
// it ("" for the path itself), each with the content to restore it from.
type snapshot struct {
	path      string
	entries   map[string]*entry
	partial   bool // some content was too large to keep
	truncated bool // the folder has more entries than were listed
}

type entry struct {
	id   fileID
	link string // a symlink's target
	data []byte // a regular file's content
	kept bool   // data (or link) holds the entry's content
}

// keeper is implemented by a backend that keeps the existing protected paths unchanged
// itself and leaves no process of a command behind it (bubblewrap: read-only mounts, a PID
// namespace that ends with the command): the paths need no copy, a change the check saw there
// would be the host's, never to be undone, and nothing of an ended command runs between
// commands.
type keeper interface {
	KeepsExisting() bool
}

func (s *Sandbox) keeps() bool {
	k, ok := s.backend.(keeper)
	return ok && k.KeepsExisting()
}

// guard snapshots the existing protected paths of spec before the command runs. Content is
// read again only for entries whose identity changed since the last command's snapshot, so
// an unchanged tree costs a few lstat calls.
func (s *Sandbox) guard(spec *Spec) *guard {
	s.mu.Lock()
	s.commands++
	s.running++
	g := &guard{s: s, spec: spec, start: fsClockNow(), n: s.commands, who: "the command"}
	if s.backups == nil {
		s.backups = map[string]*snapshot{}
	}
	prev := s.backups
	s.mu.Unlock()
	if s.keeps() {
		return g // the backend's mounts keep them: a change there is the host's own
	}
	next := map[string]*snapshot{}
	for _, p := range spec.WriteDeny {
		snap := takeSnapshot(p, prev[p])
		g.snaps = append(g.snaps, snap)
		next[p] = snap
	}
	s.mu.Lock()
	for p, snap := range next {
		s.backups[p] = snap
	}
	s.mu.Unlock()
	return g
}

// settleBetween deals with what changed since the last check while a sandboxed process could
// still run: another command, or what an ended one left running in its process group (`server
// &`; under bubblewrap nothing outlives its command). Changes then are not taken for the
// host's: protected paths are put back from the last copy and the ones that appeared go to
// the quarantine, before the next command's spec and copy are taken. since is when the last
// check ended, for the check of repositories; the command's start when nothing could run.
func (s *Sandbox) settleBetween() (lines []string, since int64) {
	s.mu.Lock()
	s.lingering = slices.DeleteFunc(s.lingering, func(pgid int) bool { return !groupAlive(pgid) })
	suspect := s.running > 0 || len(s.lingering) > 0
	prev, missing, last := s.backups, slices.Clone(s.lastMissing), s.lastCheck
	g := &guard{s: s, n: s.commands + 1, who: "a process an earlier command left running", spec: &Spec{}}
	s.mu.Unlock()
	if !suspect || last == 0 {
		return nil, fsClockNow()
	}
	for _, snap := range prev {
		if l := g.restore(snap); l != "" {
			lines = append(lines, l)
		}
	}
	for _, p := range missing {
		if exists(p) && !s.ownNow(p) {
			lines = append(lines, g.quarantine(p, fmt.Sprintf("%s created the protected path %s", g.who, p)))
		}
	}
	return lines, last
}

// ended records what a check after a command needs for the next one.
func (s *Sandbox) ended(cmd *exec.Cmd, g *guard) {
	var missing []string
	for _, p := range g.spec.MustNotCreate {
		if !exists(p) {
			missing = append(missing, p)
		}
	}
	now := fsClockNow()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	s.lastMissing, s.lastCheck = missing, now
	// (bubblewrap's own init may stay a zombie in the group for a moment: it ran nothing.)
	if !s.keeps() && cmd != nil && cmd.Process != nil && ownGroup(cmd) && groupAlive(cmd.Process.Pid) {
		s.lingering = append(s.lingering, cmd.Process.Pid)
	}
}

// takeSnapshot reads p (a file, a symlink or a folder of them), reusing prev's content where
// an entry's identity is unchanged.
func takeSnapshot(p string, prev *snapshot) *snapshot {
	snap := &snapshot{path: p, entries: map[string]*entry{}}
	budget := maxSnapshotBytes
	walkEntries(p, func(rel string, id fileID) {
		if len(snap.entries) >= maxSnapshotEntries {
			snap.partial, snap.truncated = true, true
			return
		}
		e := &entry{id: id}
		if prev != nil {
			if old := prev.entries[rel]; old != nil && old.kept && old.id == id {
				e.data, e.link, e.kept = old.data, old.link, true
			}
		}
		if !e.kept {
			full := filepath.Join(p, rel)
			switch {
			case id.mode.IsDir():
				e.kept = true
			case id.mode&fs.ModeSymlink != 0:
				if l, err := os.Readlink(full); err == nil {
					e.link, e.kept = l, true
				}
			case id.mode.IsRegular() && id.size <= maxSnapshotFile && int(id.size) <= budget:
				if b, err := readNoFollow(full); err == nil {
					e.data, e.kept = b, true
				}
			}
		}
		if e.kept && id.mode.IsRegular() {
			budget -= len(e.data)
		}
		if !e.kept {
			snap.partial = true
		}
		snap.entries[rel] = e
	})
	return snap
}

// walkEntries calls fn for p and, if it is a folder, the entries below it (symlinks not
// followed), parents before children, up to maxSnapshotEntries and one more.
func walkEntries(p string, fn func(rel string, id fileID)) {
	n := 0
	count := func(rel string, id fileID) bool {
		n++
		fn(rel, id)
		return n <= maxSnapshotEntries
	}
	walkEntriesUntil(p, count)
}

func walkEntriesUntil(p string, fn func(rel string, id fileID) bool) {
	id, err := lstatID(p)
	if err != nil {
		return
	}
	if !fn("", id) || !id.mode.IsDir() {
		return
	}
	var walk func(rel string, depth int) bool
	walk = func(rel string, depth int) bool {
		if depth > 8 {
			return true
		}
		entries, err := os.ReadDir(filepath.Join(p, rel))
		if err != nil {
			return true
		}
		for _, e := range entries {
			r := filepath.Join(rel, e.Name())
			id, err := lstatID(filepath.Join(p, r))
			if err != nil {
				continue
			}
			if !fn(r, id) || (id.mode.IsDir() && !walk(r, depth+1)) {
				return false
			}
		}
		return true
	}
	walk("", 0)
}

// check runs after the command: existing protected paths it changed are restored (what it
// left there goes to the quarantine), protected paths it created and the dangerous parts of
// repositories it created or changed are moved to the quarantine. Nothing is deleted: the
// person can look at what was taken out, and the lines say where it went.
func (g *guard) check() []string {
	lines := g.pre
	for _, snap := range g.snaps {
		if l := g.restore(snap); l != "" {
			lines = append(lines, l)
		}
	}
	for _, p := range g.spec.MustNotCreate {
		if !exists(p) || g.s.ownNow(p) {
			continue
		}
		if filepath.Base(p) == ".git" && isDir(p) && exists(filepath.Join(p, "HEAD")) {
			lines = append(lines, g.checkRepo(p, true)...)
			continue
		}
		lines = append(lines, g.quarantine(p, fmt.Sprintf("%s created the protected path %s, which would run code outside the sandbox later (a hook, a shell or tool configuration)", g.who, p)))
	}
	known := map[string]bool{}
	for _, r := range g.spec.repos {
		known[r] = true
	}
	for _, r := range g.s.searchRepos() {
		if !known[r] {
			lines = append(lines, g.checkRepo(r, false)...)
		}
	}
	// Submodules' repositories a command added under a known repository's modules/.
	for _, git := range g.knownGitDirs() {
		for _, m := range moduleRepos(git) {
			if !slices.Contains(g.spec.WriteDeny, filepath.Join(m, "hooks")) && !slices.Contains(g.spec.WriteDeny, filepath.Join(m, "config")) {
				lines = append(lines, g.checkGitDir(m)...)
			}
		}
	}
	return lines
}

// knownGitDirs are the repository folders the spec protected: the write roots' .git folders
// and the nested ones.
func (g *guard) knownGitDirs() []string {
	var out []string
	for _, r := range g.spec.WriteRoots {
		if p := filepath.Join(r, ".git"); !privateRoot(g.s.cfg, r) && isDir(p) && !slices.Contains(g.spec.MustNotCreate, p) {
			out = append(out, p)
		}
	}
	for _, r := range g.spec.repos {
		if isDir(r) {
			out = append(out, r)
		}
	}
	return out
}

// restore puts snap back as it was, moving what the command left in its place to the
// quarantine, and says what it did ("" when nothing changed).
func (g *guard) restore(snap *snapshot) string {
	if g.s.ownNow(snap.path) {
		return "" // reins wrote it: the next command's copy starts from it
	}
	// A folder on the way replaced by a symlink would lead the comparison, and git, into
	// another folder: the link goes aside first.
	if link := g.symlinkOnTheWay(snap.path); link != "" {
		line := g.quarantine(link, fmt.Sprintf("%s replaced %s, a folder on the way to the protected path %s, with a symlink, which would lead git and tools elsewhere", g.who, link, snap.path))
		if lost := g.putBack(snap); lost != "" {
			line += "; the protected path could not be restored (" + lost + ")"
		}
		return line
	}
	now := map[string]fileID{}
	walkEntries(snap.path, func(rel string, id fileID) { now[rel] = id })
	var changed, removed []string
	for rel, e := range snap.entries {
		id, ok := now[rel]
		switch {
		case !ok:
			removed = append(removed, rel)
		case id != e.id && !sameContent(filepath.Join(snap.path, rel), id, e):
			changed = append(changed, rel)
		}
	}
	var added []string
	for rel := range now {
		// Past the snapshot's bound an entry it lacks may be an old one.
		if snap.entries[rel] == nil && !snap.truncated {
			added = append(added, rel)
		}
	}
	if len(changed)+len(removed)+len(added) == 0 {
		return ""
	}
	// What the command left goes aside whole: the path itself when its own entry changed
	// (a file rewritten, a folder replaced), else each changed or added entry, outermost first.
	aside := append(changed, added...)
	if slices.Contains(changed, "") {
		aside = []string{""}
	}
	aside = outermostRel(aside)
	var moved []string
	for _, rel := range aside {
		if dst, err := g.moveAside(filepath.Join(snap.path, rel)); err == nil {
			moved = append(moved, dst)
		}
	}
	what := fmt.Sprintf("file system: %s changed the protected path %s", g.who, snap.path)
	if lost := g.putBack(snap); lost != "" {
		what += "; it could not be restored (" + lost + ")"
	} else {
		what += "; it was restored"
	}
	switch len(moved) {
	case 0:
	case 1:
		what += ", and what the command left there was moved to " + moved[0]
	default:
		what += ", and what the command left there was moved to " + g.folder()
	}
	return what
}

// symlinkOnTheWay returns the first folder between p's write root and p that is now a
// symlink, or "".
func (g *guard) symlinkOnTheWay(p string) string {
	root := ""
	for _, r := range g.spec.WriteRoots {
		if within(p, r) && len(r) > len(root) {
			root = r
		}
	}
	if root == "" || p == root {
		return ""
	}
	rel, _ := filepath.Rel(root, filepath.Dir(p))
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." {
			break
		}
		cur = filepath.Join(cur, part)
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return cur
		} else if err != nil {
			return ""
		}
	}
	return ""
}

// sameContent reports whether the entry at p, whose identity changed, still holds what e
// does: touched, or rewritten with the same bytes.
func sameContent(p string, id fileID, e *entry) bool {
	if !e.kept || id.mode != e.id.mode {
		return false
	}
	switch {
	case id.mode.IsDir():
		return true // its entries are compared one by one
	case id.mode&fs.ModeSymlink != 0:
		l, err := os.Readlink(p)
		return err == nil && l == e.link
	case id.mode.IsRegular():
		b, err := readNoFollow(p)
		return err == nil && bytes.Equal(b, e.data)
	}
	return false
}

// putBack recreates every entry of snap that is missing, parents first, and says why what it
// could not recreate is lost ("" when nothing is).
func (g *guard) putBack(snap *snapshot) string {
	rels := make([]string, 0, len(snap.entries))
	for rel := range snap.entries {
		rels = append(rels, rel)
	}
	slices.SortFunc(rels, func(a, b string) int { return depth(a) - depth(b) })
	lost := ""
	for _, rel := range rels {
		e := snap.entries[rel]
		p := filepath.Join(snap.path, rel)
		if exists(p) {
			continue
		}
		if !e.kept {
			lost = "no copy of it was kept: it is larger than the sandbox copies"
			continue
		}
		if err := recreate(p, e); err != nil {
			lost = err.Error()
		}
	}
	return lost
}

func depth(rel string) int {
	if rel == "" {
		return -1
	}
	return strings.Count(rel, "/")
}

// outermostRel drops relative paths inside another of the list ("" holds them all).
func outermostRel(rels []string) []string {
	if slices.Contains(rels, "") {
		return []string{""}
	}
	return outermost(rels)
}

// checkRepo deals with a repository the command may have made: its dangerous parts written
// during the command are moved to the quarantine. A .git folder that is no repository (no
// HEAD) where the project had none (top) goes whole: git would not use it, but it is not the
// project's either.
func (g *guard) checkRepo(git string, top bool) []string {
	fi, err := os.Lstat(git)
	if err != nil {
		return nil
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0 || (!fi.IsDir() && top):
		return []string{g.quarantine(git, fmt.Sprintf("the command created the git repository pointer %s, which would lead git to hooks of its choosing", git))}
	case !fi.IsDir():
		// A .git file names the repository's folder: what matters is that folder's hooks and
		// config, if the command could have written them.
		target := gitdirTarget(git)
		if target != "" && slices.ContainsFunc(g.spec.WriteRoots, func(r string) bool { return within(target, r) }) {
			return g.checkGitDir(target)
		}
		return nil
	case top && !exists(filepath.Join(git, "HEAD")):
		return []string{g.quarantine(git, fmt.Sprintf("the command created the protected path %s, which would run code outside the sandbox later", git))}
	}
	return g.checkGitDir(git)
}

// checkGitDir moves to the quarantine what of the repository folder git runs code from and
// changed during the command: hooks other than git's own *.sample files, a config that sets
// anything beyond a known list of settings that run nothing (safeGitConfig), a commondir
// pointing elsewhere; and the same for its submodules' repositories.
func (g *guard) checkGitDir(git string) []string {
	var lines []string
	hooks := filepath.Join(git, "hooks")
	if fi, err := os.Lstat(hooks); err == nil {
		if !fi.IsDir() {
			if g.changedSince(hooks) {
				lines = append(lines, g.quarantine(hooks, fmt.Sprintf("the command wrote the hooks of the git repository %s", git)))
			}
		} else if entries, err := os.ReadDir(hooks); err == nil {
			for _, e := range entries {
				p := filepath.Join(hooks, e.Name())
				if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".sample") {
					continue // git never runs these
				}
				if g.changedSince(p) {
					lines = append(lines, g.quarantine(p, fmt.Sprintf("the command wrote the hook %s, which git would run outside the sandbox", p)))
				}
			}
		}
	}
	config := filepath.Join(git, "config")
	if g.changedSince(config) {
		if b, err := readNoFollow(config); err != nil || !safeGitConfig(b) {
			lines = append(lines, g.quarantine(config, fmt.Sprintf("the command wrote the config of the git repository %s with settings that can run code (core.fsmonitor, core.hooksPath, aliases, filters, …)", git)))
		}
	}
	if common := filepath.Join(git, "commondir"); g.changedSince(common) {
		lines = append(lines, g.quarantine(common, fmt.Sprintf("the command pointed the git repository %s at another repository's hooks and config", git)))
	}
	for _, m := range moduleRepos(git) {
		lines = append(lines, g.checkGitDir(m)...)
	}
	return lines
}

// Wrote tells the sandbox that reins itself has just written the file p — a settings file an
// answer saved a rule to while a command ran — so that the checks around the commands that run
// meanwhile take it for the host's, not theirs: as it is now, it is no command's doing. A
// change after this one is a command's again.
func (s *Sandbox) Wrote(p string) {
	id, err := lstatID(p)
	if err != nil || id.mode.IsDir() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own == nil {
		s.own = map[string]fileID{}
	}
	s.own[resolve(p)] = id
}

// ownNow reports whether p is a file reins wrote (Wrote) and nothing changed since, or a folder
// holding only such files (the .reins folder a saved rule created): a protected path there
// is reins's own doing.
func (s *Sandbox) ownNow(p string) bool {
	s.mu.Lock()
	empty := len(s.own) == 0
	s.mu.Unlock()
	if empty {
		return false
	}
	id, err := lstatID(p)
	if err != nil {
		return false
	}
	files := []string{p}
	if id.mode.IsDir() {
		entries, err := os.ReadDir(p)
		if err != nil || len(entries) == 0 {
			return false
		}
		files = files[:0]
		for _, e := range entries {
			files = append(files, filepath.Join(p, e.Name()))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range files {
		id, err := lstatID(f)
		if o, ok := s.own[f]; err != nil || !ok || o != id {
			return false
		}
	}
	return true
}

// changedSince reports whether p exists and was changed (written, created, renamed into
// place) after the command started.
func (g *guard) changedSince(p string) bool {
	id, err := lstatID(p)
	return err == nil && id.ctime >= g.start
}

// gitdirTarget reads the folder a .git file names ("gitdir: PATH"), resolved against its
// folder; "" when it names none.
func gitdirTarget(git string) string {
	b, err := readNoFollow(git)
	if err != nil {
		return ""
	}
	t, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	t = strings.TrimSpace(t)
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(git), t)
	}
	return filepath.Clean(t)
}

// quarantine moves p aside and returns the violation line: why, then where it went.
func (g *guard) quarantine(p, why string) string {
	dst, err := g.moveAside(p)
	if err != nil {
		return "file system: " + why + "; moving it aside failed (" + err.Error() + "): inspect it before running anything there"
	}
	return "file system: " + why + "; it was moved to " + dst
}

// folder is this command's folder of the quarantine.
func (g *guard) folder() string {
	return filepath.Join(g.s.cfg.QuarantineDir, g.s.session, strconv.Itoa(g.n))
}

// moveAside moves p into this command's folder of the quarantine, keeping its absolute path
// below it, and returns where it went.
func (g *guard) moveAside(p string) (string, error) {
	dst := filepath.Join(g.folder(), strings.TrimPrefix(p, string(filepath.Separator)))
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", err
	}
	if exists(dst) {
		dst += ".again"
	}
	if err := moveNoFollow(p, dst); err != nil {
		return "", err
	}
	return dst, nil
}
