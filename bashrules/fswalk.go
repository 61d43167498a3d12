package bashrules

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
)

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// treeBudget is how many files below a directory are checked against Read rules before the
// check gives up and asks.
const treeBudget = 5000

// tree checks everything below a directory a command reads recursively against the Read deny
// and ask rules (grep -r KEY . must not read a denied .env).
func (ps *pathChecks) tree(pc *permission.Context, root string, noHidden bool) pathOutcome {
	if !isDir(root) {
		return pathOutcome{}
	}
	var out pathOutcome
	n := 0
	quiet := context.Background()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		if noHidden && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > treeBudget {
			out.res = worse(out.res, result{v: vAsk, d: askDecision(
				fmt.Sprintf("This command reads everything below %s, which holds too many files to check against your Read rules.", root), permission.ReasonOther, "tree too large")})
			return filepath.SkipAll
		}
		dec := pc.CheckRead(quiet, p)
		switch v := classify(dec); v {
		case vDeny, vAskRule:
			ps.rec.note("bash: path", v.String(), "below "+root+": "+p)
			out.res = worse(out.res, result{v: v, d: dec})
			if v == vDeny {
				return filepath.SkipAll
			}
		}
		return nil
	})
	return out
}

// glob checks a path with unquoted glob characters: reads check the pattern's base directory
// and every current match; writes ask; removals of * or dir/* are dangerous.
func (ps *pathChecks) glob(pc *permission.Context, c *Command, u pathUse, p, what string) pathOutcome {
	w := u.w
	switch u.acc {
	case accRemove, accRemoveUnder, accRemoveIfExists:
		if w.Value == "*" || strings.HasSuffix(w.Value, "/*") {
			return pathOutcome{writes: true, res: ps.verdicts.dangerResult(c, w, w.Value, "it removes everything in a directory")}
		}
		base, _ := pc.ResolvePath(globBase(p))
		if why := dangerous(ps.pc, pc, base, true); why != "" {
			return pathOutcome{writes: true, res: ps.verdicts.dangerResult(c, w, base, why)}
		}
		fallthrough
	case accWrite:
		return pathOutcome{writes: true, res: result{v: vAsk, d: askDecision(
			fmt.Sprintf("This command writes to %s, a pattern whose matches cannot be checked before it runs.", w.Src), permission.ReasonOther, "glob in a write target")}}
	}
	base := globBase(p)
	var out pathOutcome
	if u.acc != accProbe {
		baseAbs, err := pc.ResolvePath(base)
		if err != nil {
			return pathOutcome{res: unsure(err.Error())}
		}
		out.merge(ps.read(pc, baseAbs))
	}
	if out.res.v != vAllow {
		return out // the pattern's directory already needs approval; no need to list it
	}
	pattern, err := pc.ResolvePath(p)
	if err != nil {
		return pathOutcome{res: unsure(err.Error())}
	}
	matches, err := boundedGlob(pattern, globBudget)
	switch {
	case err == errGlobTooLarge || len(matches) > 1000:
		return pathOutcome{res: result{v: vAsk, d: askDecision(fmt.Sprintf("The pattern %s matches too many files to check.", w.Src), permission.ReasonOther, "glob too large")}}
	case err != nil:
		return pathOutcome{res: unsure("a glob pattern that does not parse: " + w.Src)}
	}
	for _, m := range matches {
		mw := Word{Src: m, Value: m, Known: true}
		acc := u.acc
		if acc == accReadIfExists {
			acc = accRead
		}
		out.merge(ps.use(pc, c, pathUse{w: mw, acc: acc}, what))
	}
	return out
}

// globBudget bounds the directory entries read to expand one pattern.
const globBudget = 20000

var errGlobTooLarge = errors.New("glob too large")

// boundedGlob expands an absolute pattern like filepath.Glob, but gives up after reading budget
// directory entries, so that /*/*/*/* cannot make a permission check walk the file system.
// Like bash without dotglob, a name starting with a dot is matched only by a pattern starting
// with a literal dot.
func boundedGlob(pattern string, budget int) ([]string, error) {
	pattern = filepath.Clean(pattern)
	// The walk starts at the root of the pattern's volume: "/", or on Windows C:\.
	vol := filepath.VolumeName(pattern)
	parts := strings.Split(pattern[len(vol):], string(filepath.Separator))
	cands := []string{vol + string(filepath.Separator)}
	for _, part := range parts {
		if part == "" {
			continue
		}
		if !strings.ContainsAny(part, "*?[\\") {
			for i := range cands {
				cands[i] = filepath.Join(cands[i], part)
			}
			continue
		}
		if _, err := filepath.Match(part, ""); err != nil {
			return nil, err
		}
		var next []string
		for _, dir := range cands {
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			if budget -= len(entries); budget < 0 {
				return nil, errGlobTooLarge
			}
			for _, e := range entries {
				// As in bash (without dotglob), a leading dot must be matched by a literal dot.
				if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(part, ".") {
					continue
				}
				if ok, _ := filepath.Match(part, e.Name()); ok {
					next = append(next, filepath.Join(dir, e.Name()))
				}
			}
		}
		cands = next
		if len(cands) == 0 {
			return nil, nil
		}
	}
	out := cands[:0]
	for _, c := range cands {
		if _, err := os.Lstat(c); err == nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// globBase is the directory part of a pattern before its first glob character.
func globBase(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p
	}
	dir := p[:i]
	j := strings.LastIndexByte(dir, '/')
	switch {
	case j < 0:
		return "."
	case j == 0:
		return "/"
	}
	return dir[:j]
}

// globOption says why an unquoted pattern among a command's arguments may expand to one of its
// options: a file in the pattern's directory whose name starts with "-" matches it (find *
// -name x beside a file named -delete).
//
// Only the words before a "--" count (after it every word is an operand), and only a pattern
// whose first character could begin a name with "-" (*, ?, [, or a literal -): src* cannot.
func (ps *pathChecks) globOption(c *Command) string {
	for _, a := range c.Argv[1:] {
		if a.Known && a.Value == "--" {
			break
		}
		// Only a pattern without a slash expands to bare names; dir/* expands to dir/-x.
		if !a.Known || !a.Glob || strings.ContainsRune(a.Value, '/') || a.Value == "" || !strings.ContainsRune("*?[-", rune(a.Value[0])) {
			continue
		}
		for _, pc := range ps.cwds(c.Where) {
			pattern, err := pc.ResolvePath(a.Value)
			if err != nil {
				return "the pattern " + a.Src + " cannot be resolved"
			}
			matches, err := boundedGlob(pattern, globBudget)
			if err != nil {
				return "the pattern " + a.Src + " cannot be expanded to check for names that look like options"
			}
			for _, m := range matches {
				if b := filepath.Base(m); strings.HasPrefix(b, "-") {
					return "the pattern " + a.Src + " expands to " + b + ", which the command reads as an option"
				}
			}
		}
	}
	return ""
}
