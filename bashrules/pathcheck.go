package bashrules

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/reinsdev/reins/permission"
)

var exemptOutputs = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/fd/1": true, "/dev/fd/2": true}

var exemptInputs = map[string]bool{"/dev/null": true, "/dev/stdin": true, "/dev/zero": true, "/dev/urandom": true, "/dev/random": true, "/dev/tty": true, "/dev/fd/0": true}

func exemptOutput(w Word) bool { return w.Known && exemptOutputs[w.Value] }

// pathChecks are the path checks of one decision: the paths a command or a redirection
// reads and writes, through the engine's Read and Edit checks in every working directory the
// command may run in (after a cd, and the session's original one). It holds what they share
// over a command line: the cd the analysis found, the checks already made and the Lstat
// results (ctx). Nothing in it outlives the decision.
type pathChecks struct {
	ctx      context.Context
	pc       *permission.Context
	orig     *permission.Context // the session's context with the original working directory
	rec      *recorder
	verdicts *verdicts
	// readRules reports that some Read deny or ask rule exists.
	readRules bool
	// onlyPC is the list of pc alone, handed out (to be read only) by cwds and
	// ruleContexts in the usual case of one working directory.
	onlyPC [1]*permission.Context
	cd     *cdState
	cdBuf  cdState // what cd points to, allocated with the checker
	// checks caches the read and write checks of this command line (see check).
	// A command line checks a few paths: a short list searched in order costs less than a
	// map, which is made only when the list is full.
	checkList []checkEntry
	checks    map[checkKey]permission.Decision
	checkBuf  [4]checkEntry // checkList's first array
	// probeBuf is the array command lends to probes.
	probeBuf []pathUse
}

// init readies ps, a zero pathChecks, for one decision in pc.
func (ps *pathChecks) init(ctx context.Context, pc *permission.Context, readRules bool, rec *recorder, vs *verdicts) {
	ps.ctx, ps.pc, ps.readRules, ps.rec, ps.verdicts = ctx, pc, readRules, rec, vs
	ps.onlyPC[0] = pc
	ps.checkList = ps.checkBuf[:0]
}

// redirect checks a redirection: an output target is a write (granted only by acceptEdits or
// an Edit allow rule), an input is a read.
func (ps *pathChecks) redirect(rd *Redirect) (result, bool) {
	var acc access
	switch rd.Kind {
	case RedirOut, RedirInOut:
		if exemptOutput(rd.Target) {
			return allowed, false
		}
		acc = accWrite
	case RedirIn:
		if rd.Target.Known && exemptInputs[rd.Target.Value] {
			return allowed, false
		}
		acc = accRead
	default:
		return allowed, false
	}
	worst := allowed
	prev := ps.rec.cur
	ps.rec.cur = nil
	defer func() { ps.rec.cur = prev }()
	for _, pc := range ps.cwds(rd.Where) {
		o := ps.use(pc, nil, pathUse{w: rd.Target, acc: acc}, "redirect")
		worst = worse(worst, o.res)
		if acc == accWrite && o.needGrant {
			worst = worse(worst, result{v: vAsk, d: o.grantAsk})
		}
	}
	return worst, true
}

// pathOutcome is what the path checks of one command found.
type pathOutcome struct {
	res       result // the worst ask or deny
	writes    bool   // the command writes or removes something
	needGrant bool   // a write inside the working directories is not granted by mode or rule
	grantAsk  permission.Decision
	issues    []string
}

func (o *pathOutcome) merge(p pathOutcome) {
	o.res = worse(o.res, p.res)
	o.writes = o.writes || p.writes
	if p.needGrant && !o.needGrant {
		o.needGrant, o.grantAsk = true, p.grantAsk
	}
	o.issues = append(o.issues, p.issues...)
}

// command runs the path checks of one command; hasChildren says it runs commands of its own
// (their paths are checked with them), so its words are not probed for paths.
func (ps *pathChecks) command(c *Command, hasChildren bool) pathOutcome {
	var out pathOutcome
	if c.Kind != KindCall || len(c.Argv) == 0 {
		return out
	}
	name, _ := commandName(c.Argv[0])
	if name == "" {
		return out
	}
	var uses []pathUse
	if spec, ok := pathFuncOf(name); ok {
		pr := spec(c.Argv[1:])
		uses, out.issues = pr.uses, pr.issues
	} else if !hasChildren && !isWrapperLike(name) {
		// The probes are read only in this call: they reuse the decision's array, taken
		// for the time of the call.
		buf := ps.probeBuf
		ps.probeBuf = nil
		uses = probes(c.Argv[1+commandWords(name, c.Argv[1:]):], buf[:0])
		defer func() { ps.probeBuf = uses[:0] }()
	}
	uses = kbPathUses(name, c.Argv[1:], uses)
	if c.HasPlaceholders() && len(c.Roots) == 0 && (ps.readRules || removes(uses)) {
		// xargs fills these in at run time.
		for _, u := range uses {
			if u.w.Placeholder || !u.w.Known {
				out.merge(ps.unknownPath(c, u))
			}
		}
	}
	if c.ExtraArgs {
		extra := pathUse{w: Word{Src: "(arguments from xargs input)", Why: "arguments read by xargs"}}
		if spec, ok := pathFuncOf(name); ok {
			// What the command does with one more operand is what it does with them all.
			pr := spec(append(slices.Clone(c.Argv[1:]), Word{Src: "ARG", Value: "ARG", Known: true, Placeholder: true}))
			for _, u := range pr.uses {
				if u.w.Placeholder {
					extra.acc = u.acc
					out.merge(ps.unknownPath(c, extra))
				}
			}
		} else if ps.readRules {
			extra.acc = accRead
			out.merge(ps.unknownPath(c, extra))
		}
	}
	for _, u := range uses {
		if c.OtherDir {
			out.merge(pathOutcome{res: result{v: vAsk, d: askDecision(
				fmt.Sprintf("%s runs in another directory or root, so its path %s cannot be checked.", name, u.w.Src), permission.ReasonOther, "other directory")}})
			continue
		}
		if u.w.Placeholder && len(c.Roots) == 0 {
			continue // handled above
		}
		if u.acc == accWrite && exemptOutput(u.w) {
			continue // script -c make /dev/null, as a redirection to it
		}
		for _, pc := range ps.cwds(c.Where) {
			out.merge(ps.use(pc, c, u, name))
		}
	}
	return out
}

func removes(uses []pathUse) bool {
	for _, u := range uses {
		if u.acc == accRemove || u.acc == accRemoveUnder {
			return true
		}
	}
	return false
}

func isWrapperLike(name string) bool {
	_, w := wrapperOf(name)
	return w || name == "eval" || name == "trap" || name == "find" || name == "xargs"
}

// probes are the arguments of an unknown command that may name files (operands, option values
// and @file arguments), appended to out. Only Read deny and ask rules are checked against them.
func probes(args []Word, out []pathUse) []pathUse {
	if cap(out) < min(len(args), 64) {
		out = make([]pathUse, 0, max(min(len(args), 64), 4))
	}
	for _, a := range args {
		if !a.Known || len(a.Value) > 4096 || strings.ContainsRune(a.Value, '\n') || len(out) >= 64 {
			continue
		}
		v := a.Value
		switch {
		case strings.HasPrefix(v, "-"):
			_, val, ok := strings.Cut(v, "=")
			if !ok || val == "" {
				continue
			}
			v = val
		case strings.HasPrefix(v, "@") && len(v) > 1:
			v = v[1:]
		}
		w := subWord(a, v)
		out = append(out, pathUse{w: w, acc: accProbe})
	}
	return out
}

// unknownPath handles a path the analysis cannot know: removing it is a safety ask, writing
// it asks, reading it asks when Read rules could forbid it.
func (ps *pathChecks) unknownPath(c *Command, u pathUse) pathOutcome {
	why := u.w.Why
	if why == "" {
		why = "its value is only known when it runs"
	}
	switch u.acc {
	case accRemove, accRemoveUnder:
		msg := fmt.Sprintf("This command removes %s, whose target cannot be known before it runs (%s); it needs your explicit approval.", u.w.Src, why)
		return pathOutcome{writes: true, res: result{v: vSafety, d: askDecision(msg, permission.ReasonSafetyCheck, "removal of an unknown path")}}
	case accWrite:
		return pathOutcome{writes: true, res: result{v: vAsk, d: askDecision(
			fmt.Sprintf("This command writes to %s, which cannot be known before it runs (%s).", u.w.Src, why), permission.ReasonOther, "write to an unknown path")}}
	case accRead, accReadTree:
		if ps.readRules {
			return pathOutcome{res: result{v: vAsk, d: askDecision(
				fmt.Sprintf("This command reads %s, which cannot be known before it runs (%s), and your Read rules may forbid it.", u.w.Src, why), permission.ReasonOther, "read of an unknown path")}}
		}
	}
	return pathOutcome{}
}

// use checks one path use in one working-directory context. Every kind of word —
// placeholder, unknown, ~user, pattern, path — must reach exactly one of the checks, which
// is easiest to see in one switch: here the words that cannot be checked get their answer,
// and the rest are resolved and checked against the rules (checkPath).
func (ps *pathChecks) use(pc *permission.Context, c *Command, u pathUse, what string) pathOutcome {
	w := u.w
	if w.Placeholder && c != nil && len(c.Roots) > 0 {
		return ps.useRoots(pc, c, u, what)
	}
	switch {
	case !w.Known || w.Placeholder:
		if u.acc == accProbe || u.acc == accReadIfExists || u.acc == accRemoveIfExists {
			return pathOutcome{}
		}
		return ps.unknownPath(c, u)
	case w.Tilde == TildeOther:
		if u.acc == accProbe {
			return pathOutcome{}
		}
		if u.acc == accRemove || u.acc == accRemoveUnder || u.acc == accRemoveIfExists {
			return ps.unknownPath(c, pathUse{w: Word{Src: w.Src, Why: "another user's home or the directory stack"}, acc: accRemove})
		}
		return pathOutcome{writes: isWrite(u.acc), res: result{v: vAsk, d: askDecision(
			fmt.Sprintf("Path %s names another user's home or the directory stack, which cannot be checked.", w.Src), permission.ReasonOther, "~user path")}}
	case hasCombining(w.Value):
		return pathOutcome{writes: isWrite(u.acc), res: result{v: vAsk, d: askDecision(
			fmt.Sprintf("Path %s contains combining characters; the file system may treat it as another name.", w.Src), permission.ReasonOther, "combining characters in a path")}}
	}
	if u.linkIn != nil && !filepath.IsAbs(w.Value) && w.Tilde != TildeHome && !w.Glob {
		return ps.linkTarget(pc, c, u, what)
	}
	p, ok := usePath(u)
	if !ok {
		return ps.unknownPath(c, pathUse{w: *u.dir, acc: u.acc})
	}
	if w.Glob {
		return ps.glob(pc, c, u, p, what)
	}
	abs, err := pc.ResolvePath(p)
	if err != nil {
		return pathOutcome{res: result{v: vAsk, d: askDecision(fmt.Sprintf("Path %s cannot be checked: %v.", w.Src, err), permission.ReasonOther, err.Error())}}
	}
	kernel := ""
	if permission.HasDotDot(p) && !strings.HasPrefix(p, "~") {
		// The program opens the path as written: a ".." after a symlink is the parent of
		// the link's target, not of the link (cat link/../secret). Both forms are checked.
		if k := permission.ResolveAsKernel(pc.Cwd(), p); k != abs {
			kernel = k
		}
	}
	out, settled := ps.ifExists(pc, u, abs)
	if !settled {
		out = ps.checkPath(pc, c, u, abs, what)
	}
	if kernel != "" {
		if ko, settled := ps.ifExists(pc, u, kernel); settled {
			out.merge(ko)
		} else {
			out.merge(ps.checkPath(pc, c, u, kernel, what))
		}
	}
	return out
}

// linkTarget checks a symbolic link's relative target where the kernel will read it: from
// the directory the link is made in (ln -s ../.env sub/e names the project's .env, not the
// one above the project), every symlink and ".." on the way resolved as the kernel does.
func (ps *pathChecks) linkTarget(pc *permission.Context, c *Command, u pathUse, what string) pathOutcome {
	at := *u.linkIn
	if !at.Known || at.Placeholder || at.Tilde == TildeOther {
		return ps.unknownPath(c, pathUse{w: at, acc: u.acc})
	}
	lp, err := pc.ResolvePath(at.Value)
	if err != nil {
		return pathOutcome{res: result{v: vAsk, d: askDecision(fmt.Sprintf("Path %s cannot be checked: %v.", at.Src, err), permission.ReasonOther, err.Error())}}
	}
	dir := lp
	if u.linkFile || !isDir(lp) {
		dir = filepath.Dir(lp)
	}
	k := permission.ResolveAsKernel(dir, u.w.Value)
	plain := u
	plain.linkIn = nil
	out := ps.checkPath(pc, c, plain, k, what)
	if lexical := filepath.Join(dir, u.w.Value); lexical != k {
		out.merge(ps.checkPath(pc, c, plain, lexical, what))
	}
	return out
}

// useRoots checks find -exec's {}: it stands for any path under find's start paths, so each
// is checked as a tree, a write as a removal under it.
func (ps *pathChecks) useRoots(pc *permission.Context, c *Command, u pathUse, what string) pathOutcome {
	var out pathOutcome
	acc := accReadTree
	switch u.acc {
	case accWrite, accRemove, accRemoveUnder:
		acc = accRemoveUnder
	case accProbe:
		acc = accProbe
	}
	for _, root := range c.Roots {
		out.merge(ps.use(pc, nil, pathUse{w: root, acc: acc}, what+" {}"))
	}
	return out
}

// usePath is the path a known word names, as the command will see it; false when it is
// relative to a directory (git -C) that is not known to be a path.
func usePath(u pathUse) (string, bool) {
	p := u.w.Value
	if strings.HasPrefix(p, "~") && u.w.Tilde != TildeHome {
		p = "./" + p // a quoted ~ is a literal directory name
	}
	// A word is a shell's path: "/x" is absolute on every system (Git Bash's on Windows), and
	// the words join with "/".
	if u.dir != nil && !filepath.IsAbs(p) && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
		if !u.dir.IsPathLike() {
			return "", false
		}
		p = path.Join(u.dir.Value, p)
		if strings.HasPrefix(u.dir.Value, "~") && u.dir.Tilde != TildeHome {
			p = "./" + p
		}
	}
	return p, true
}

// ifExists settles the uses that count only when their file exists (probes, and reads and
// removals of files that may be missing), when it does not: it reports true with their
// outcome. Other uses, and files that exist, are left to checkPath.
func (ps *pathChecks) ifExists(pc *permission.Context, u pathUse, abs string) (pathOutcome, bool) {
	switch u.acc {
	case accProbe:
		// A probe reports only a Read deny or ask rule or a protected name (see checkAbs), and
		// both checks refuse a suspicious path (go vet ./... names "...") with a plain safety
		// ask before they look at a rule or the file: nothing is left to look at. A trace or
		// an explanation still runs the checks, for their lines.
		if !ps.rec.on && ps.rec.effects == nil && permission.SuspiciousPath(abs) != "" {
			return pathOutcome{}, true
		}
		if _, err := permission.Lstat(ps.ctx, abs); err != nil {
			// Not a file yet, but the command may create it: only a protected name counts.
			if strings.ContainsAny(u.w.Value, "./") {
				if o := ps.writeOne(pc, abs); protectedAsk(o.res) {
					return pathOutcome{res: o.res}, true
				}
			}
			return pathOutcome{}, true
		}
	case accReadIfExists, accRemoveIfExists:
		if _, err := permission.Lstat(ps.ctx, abs); err != nil {
			return pathOutcome{}, true
		}
	}
	return pathOutcome{}, false
}

// checkPath checks the resolved path abs of a use against the rules of every context they
// were written in, and records the effect for an explanation.
func (ps *pathChecks) checkPath(pc *permission.Context, c *Command, u pathUse, abs, what string) pathOutcome {
	if ps.rec.on {
		ps.rec.note("bash: path", u.acc.String(), fmt.Sprintf("%s %s (%s)", what, abs, u.w.Src))
	}
	// The path is resolved against the directory the command runs in, but rules written
	// relative to the working directory ("./.env") are checked from the session's directory
	// too: after cd src, ../.env is still the file the rule names.
	var out pathOutcome
	for _, rc := range ps.ruleContexts(pc) {
		out.merge(ps.checkAbs(rc, c, u, u.w, abs))
	}
	if ps.rec.effects != nil {
		check := "Read check"
		if isWrite(u.acc) {
			check = "Edit check"
		}
		v := out.res.v
		if v == vAllow && out.needGrant {
			v = vNeeds
		}
		ps.rec.effect(u.acc.String(), abs, check, v)
	}
	return out
}

func (ps *pathChecks) ruleContexts(pc *permission.Context) []*permission.Context {
	// A session whose shell has moved away from where it started still has rules written
	// for the project's directory.
	if ps.orig == nil && ps.pc.Cwd() != ps.pc.OriginalCwd() {
		ps.orig = ps.pc.WithCwd(ps.pc.OriginalCwd())
	}
	if pc == ps.pc && (ps.orig == nil || pc.Cwd() == ps.orig.Cwd()) {
		return ps.onlyPC[:] // the usual case, without allocating
	}
	out := []*permission.Context{pc}
	if pc != ps.pc {
		out = append(out, ps.pc)
	}
	if ps.orig != nil && pc.Cwd() != ps.orig.Cwd() {
		out = append(out, ps.orig)
	}
	return out
}

func (ps *pathChecks) checkAbs(pc *permission.Context, c *Command, u pathUse, w Word, abs string) pathOutcome {
	switch u.acc {
	case accRead, accReadIfExists:
		return ps.read(pc, abs)
	case accProbe:
		// An argument of a command the analysis does not know: a Read rule that forbids it
		// counts, and so does naming a protected file, which the command may write.
		o := ps.read(pc, abs)
		if o.res.v == vDeny || o.res.v == vAskRule {
			return o
		}
		if w := ps.writeOne(pc, abs); protectedAsk(w.res) {
			return pathOutcome{res: w.res}
		}
		return pathOutcome{}
	case accReadTree:
		o := ps.read(pc, abs)
		if o.res.v == vAllow && ps.readRules {
			o.merge(ps.tree(pc, abs, u.noHidden))
		}
		return o
	case accRemove, accRemoveIfExists, accRemoveUnder:
		if why := dangerous(ps.pc, pc, abs, u.acc == accRemoveUnder); why != "" {
			return pathOutcome{writes: true, res: ps.verdicts.dangerResult(c, w, abs, why)}
		}
		return ps.write(pc, abs, "")
	}
	return ps.write(pc, abs, u.base)
}

func isWrite(a access) bool {
	return a == accWrite || a == accRemove || a == accRemoveUnder || a == accRemoveIfExists
}

func hasCombining(s string) bool {
	for _, r := range s {
		if r >= 0x300 && unicode.Is(unicode.Mn, r) {
			return true
		}
	}
	return false
}

// checkKey names one read or write check of one command: its context and absolute path.
type checkKey struct {
	pc    *permission.Context
	abs   string
	write bool
}

// check runs the read or write check of abs once per command: a path that several words or
// commands name (cat a && grep x a) is resolved, symlinks and all, only once. When a trace is
// being written every check runs, so that each leaves its lines.
func (ps *pathChecks) check(pc *permission.Context, abs string, write bool) permission.Decision {
	if ps.rec.on {
		if write {
			return pc.CheckWrite(ps.ctx, abs)
		}
		return pc.CheckRead(ps.ctx, abs)
	}
	key := checkKey{pc, abs, write}
	for i := range ps.checkList {
		if ps.checkList[i].key == key {
			return ps.checkList[i].d
		}
	}
	if d, ok := ps.checks[key]; ok {
		return d
	}
	var d permission.Decision
	if write {
		d = pc.CheckWrite(ps.ctx, abs)
	} else {
		d = pc.CheckRead(ps.ctx, abs)
	}
	switch {
	case len(ps.checkList) < maxCheckList:
		ps.checkList = append(ps.checkList, checkEntry{key, d})
	default:
		if ps.checks == nil {
			ps.checks = make(map[checkKey]permission.Decision, 8)
		}
		ps.checks[key] = d
	}
	return d
}

// maxCheckList is how many checks are kept in checker.checkList before the map takes over.
const maxCheckList = 16

type checkEntry struct {
	key checkKey
	d   permission.Decision
}

func (ps *pathChecks) read(pc *permission.Context, abs string) pathOutcome {
	d := ps.check(pc, abs, false)
	if v := classify(d); v != vAllow {
		return pathOutcome{res: result{v: v, d: d}}
	}
	return pathOutcome{}
}

// write runs the write check. A write inside the working directories that no mode or Edit rule
// grants is fine for a command an allow rule allows, but keeps it from being auto-allowed.
func (ps *pathChecks) write(pc *permission.Context, abs, base string) pathOutcome {
	out := ps.writeOne(pc, abs)
	if base != "" && isDir(abs) {
		out.merge(ps.writeOne(pc, filepath.Join(abs, base)))
	}
	return out
}

func (ps *pathChecks) writeOne(pc *permission.Context, abs string) pathOutcome {
	d := ps.check(pc, abs, true)
	v := classify(d)
	switch {
	case v == vAllow:
		return pathOutcome{writes: true}
	case v == vAsk && pc.InWorkingDirs(abs):
		return pathOutcome{writes: true, needGrant: true, grantAsk: d}
	}
	return pathOutcome{writes: true, res: result{v: v, d: d}}
}

// dangerous says why removing abs (or, with under, files below it) would be catastrophic: the
// root, a top-level system directory, the home directory, the working directories (pc's and
// the session's) and any of their parents.
func dangerous(session, pc *permission.Context, abs string, under bool) string {
	if abs == "" {
		return ""
	}
	abs = filepath.Clean(abs)
	switch {
	case isRoot(abs):
		return "the file-system root" // on Windows a drive's (C:\) or a share's
	case isRoot(filepath.Dir(abs)):
		return "a top-level system directory" // /usr, C:\Windows
	case pc.Home() != "" && strings.EqualFold(abs, filepath.Clean(pc.Home())):
		return "the home directory"
	}
	dirs := append([]string{pc.Cwd(), session.Cwd(), pc.OriginalCwd()}, pc.WorkingDirs()...)
	for _, d := range dirs {
		d = filepath.Clean(d)
		if strings.EqualFold(abs, d) && !under {
			return "the working directory"
		}
		if strings.HasPrefix(strings.ToLower(d), strings.ToLower(abs)+string(filepath.Separator)) {
			return "a parent of the working directory"
		}
	}
	return ""
}

// isRoot reports a clean absolute path that has no parent: "/", and on Windows a drive's root
// (C:\) or a share's (\\server\share\).
func isRoot(abs string) bool { return filepath.Dir(abs) == abs }

// bareGit reports a git command that would run in what looks like a planted bare repository.
func (ps *pathChecks) bareGit(name string, c *Command) bool {
	if name != "git" {
		return false
	}
	for _, pc := range ps.cwds(c.Where) {
		if gitInBareRepo(ps.ctx, pc.Cwd(), c.Argv[1:]) {
			ps.rec.note("bash: not read-only", "", c.Text+": runs in a directory that looks like a bare git repository")
			return true
		}
	}
	return false
}
