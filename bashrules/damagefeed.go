package bashrules

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsdev/reins/bashrules/cmdline"
	"github.com/reinsdev/reins/permission"
)

// What a destroying command gets only at run time, as the damage count follows it: a for
// loop's variable (the body is counted once per value of the list: for f in dir/*; do : >
// "$f"; done empties every match), the {} of find -exec (the files find selects), and the
// operands xargs reads from its input when a command before it in the pipe lists them
// (printf '%s\n' dir/* | xargs truncate -s0, find dir -name '*.log' | xargs rm). Anything
// else — a while read loop, xargs reading a file, a variable set elsewhere — cannot be
// counted: the count is unknown, which the decision treats as over budget (an ask).

// maxLoopValues bounds the values of a loop the count applies a body to.
const maxLoopValues = globBudget

// xargsInput stands for the operands xargs appends from its input (xargs without -I).
var xargsInput = Word{Src: "(xargs input)", Value: "(xargs input)", Known: true, Placeholder: true}

// listFormats are printf formats that print each argument as one item of a list.
var listFormats = map[string]bool{`%s\n`: true, `%s\0`: true, `%s\000`: true, `%s `: true, `%s\t`: true, `%s\r\n`: true}

// commandDamage lists what c, the destroyer name run in pc, would destroy.
func commandDamage(a *Analysis, pc *permission.Context, c *Command, name string) []damageTarget {
	args := c.Argv[1:]
	if c.ExtraArgs {
		args = append(slices.Clip(args), xargsInput)
	}
	if c.OtherDir {
		if args = execdirArgs(c, args); args == nil {
			return []damageTarget{unknownTarget(c.Text + " runs in a folder the analysis does not follow")}
		}
	}
	return perValue(a, pc, c.ForVar, args, func(ws []Word) []damageTarget {
		return feedTargets(pc, c, destroyer(name)(pc, ws))
	})
}

// execdirArgs are the arguments of a command find -execdir runs in each file's folder: its {}
// is the file, any other relative path is unknown. Nil for a command run elsewhere (env -C,
// chroot), which the count does not follow.
func execdirArgs(c *Command, args []Word) []Word {
	if c.Via != "find -execdir" && c.Via != "find -okdir" {
		return nil
	}
	out := slices.Clone(args)
	for i, w := range out {
		if w.Known && !w.Placeholder && !strings.HasPrefix(w.Value, "-") && !strings.HasPrefix(w.Value, "/") {
			out[i] = Word{Src: w.Src, Why: "relative to the folder find -execdir runs it in"}
		}
	}
	return out
}

// perValue calls fn with ws once per value of the loop variable ws refer to (whole words,
// "$f" or ${f}), ws as they are when they refer to none.
func perValue(a *Analysis, pc *permission.Context, fv *cmdline.ForVar, ws []Word, fn func([]Word) []damageTarget) []damageTarget {
	var v *cmdline.ForVar
	for _, w := range ws {
		if name, _, ok := loopRef(w); ok {
			f := fv.Lookup(name)
			if v != nil && f != nil && f != v {
				return []damageTarget{unknownTarget("the variables of two loops in one command are not followed")}
			}
			if f != nil {
				v = f
			}
		}
	}
	if v == nil {
		return fn(ws)
	}
	values, bad := loopValues(v, a, pc)
	if bad != nil {
		return []damageTarget{*bad}
	}
	var out []damageTarget
	for _, val := range values {
		sub := slices.Clone(ws)
		for i, w := range ws {
			name, quoted, ok := loopRef(w)
			if !ok || name != v.Name {
				continue
			}
			if !quoted && strings.ContainsAny(val.Value, " \t\n*?[") {
				return []damageTarget{unknownTarget(fmt.Sprintf("%s, unquoted, splits or expands the value %s", w.Src, val.Src))}
			}
			sub[i] = val
		}
		out = append(out, fn(sub)...)
	}
	return out
}

// loopRef reports a word that is a variable's value and nothing else: $f, ${f}, "$f", "${f}".
func loopRef(w Word) (name string, quoted, ok bool) {
	if w.Known || w.Placeholder {
		return "", false, false
	}
	s := w.Src
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s, quoted = s[1:len(s)-1], true
	}
	s, ok = strings.CutPrefix(s, "$")
	if !ok {
		return "", false, false
	}
	if len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}' {
		s = s[1 : len(s)-1]
	}
	if !nameRE().MatchString(s) {
		return "", false, false
	}
	return s, quoted, true
}

// loopValues are the values the loop fv gives its variable, globs expanded in pc: a pattern that
// matches nothing stays as written, as bash leaves it.
func loopValues(fv *cmdline.ForVar, a *Analysis, pc *permission.Context) ([]Word, *damageTarget) {
	fail := func(why string) ([]Word, *damageTarget) {
		t := unknownTarget(why)
		return nil, &t
	}
	if fv.Why != "" {
		return fail(fv.Why)
	}
	if why := setElsewhere(fv, a); why != "" {
		return fail(why)
	}
	var out []Word
	for _, it := range fv.Items {
		if !it.Known || it.Placeholder || it.Tilde == TildeOther {
			return fail(fmt.Sprintf("for %s in … %s: a value known only when it runs", fv.Name, it.Src))
		}
		if !it.Glob {
			out = append(out, it)
			continue
		}
		abs, ok := damagePath(pc, it)
		if !ok {
			return fail("for " + fv.Name + " in … " + it.Src + ": the pattern cannot be resolved")
		}
		matches, err := boundedGlob(abs, globBudget)
		if err != nil {
			return fail(fmt.Sprintf("for %s in … %s: %v", fv.Name, it.Src, err))
		}
		if len(matches) == 0 {
			out = append(out, Word{Src: it.Src, Value: it.Value, Known: true})
		}
		for _, m := range matches {
			out = append(out, Word{Src: quoteWord(m), Value: m, Known: true})
		}
		if len(out) > maxLoopValues {
			return fail(fmt.Sprintf("for %s loops over more than %d values", fv.Name, maxLoopValues))
		}
	}
	return out, nil
}

// setElsewhere says how a command other than the loop fv sets its variable, which makes its
// values unknown.
func setElsewhere(fv *cmdline.ForVar, a *Analysis) string {
	for _, c := range a.Commands {
		if c == fv.Assign {
			continue
		}
		for _, as := range c.Assigns {
			if as.Name == fv.Name {
				return fmt.Sprintf("$%s is set again (%s)", fv.Name, c.Text)
			}
		}
		name, _ := c.Name()
		t := roles()
		switch {
		case t.shellText[name] != "":
			return fmt.Sprintf("%s may set $%s", c.Text, fv.Name)
		case t.setsVars[name]:
			for _, w := range c.Argv[1:] {
				if !w.Known || w.Value == fv.Name || strings.HasPrefix(w.Value, fv.Name+"=") {
					return fmt.Sprintf("%s may set $%s", c.Text, fv.Name)
				}
			}
		}
	}
	return ""
}

// feed is what stands for a command's run-time operands: the words a producer lists, or the
// files a find selects.
type feed struct {
	placeholder string   // the word that stands for one of them
	words       []Word   // listed
	sel         *findSel // selected by find
	// split: xargs splits its input at blanks and takes quotes and backslashes as quoting,
	// so a listed path holding one is not passed as it is.
	split bool
	why   string // set when the operands cannot be known
}

// feedTargets replaces the targets that stand for c's run-time operands by what they are.
func feedTargets(pc *permission.Context, c *Command, ts []damageTarget) []damageTarget {
	if !slices.ContainsFunc(ts, func(t damageTarget) bool { return t.feed }) {
		return ts
	}
	f := feedOf(pc, c)
	out := make([]damageTarget, 0, len(ts))
	for _, t := range ts {
		switch {
		case !t.feed:
			out = append(out, t)
		case f.why != "":
			out = append(out, unknownTarget(f.why))
		case t.src != f.placeholder:
			out = append(out, unknownTarget(t.why)) // a placeholder inside a longer word: src/{}
		default:
			out = append(out, f.targets(pc, t.op)...)
		}
	}
	return out
}

// targets are what destroying each of the feed's operands as op destroys.
func (f feed) targets(pc *permission.Context, op damageOp) []damageTarget {
	if f.sel != nil {
		return f.sel.targets(pc, op)
	}
	paths, bad := knownPaths(pc, f.words)
	for _, p := range paths {
		// As the shell lists it: relative, with slashes (on Windows a backslash is a
		// separator, never part of a name, so only Unix's can be quoting to xargs).
		rel := filepath.ToSlash(strings.TrimPrefix(p, pc.Cwd()+string(filepath.Separator)))
		if f.split && strings.ContainsAny(rel, " \t\n'\"\\") {
			return []damageTarget{unknownTarget(fmt.Sprintf("xargs splits the listed %q at its blanks or quotes", rel))}
		}
	}
	return append(bad, targets(op, paths)...)
}

// feedOf is what c's run-time operands are: find's selection for find -exec's {}, a listing
// piped into xargs for its input.
func feedOf(pc *permission.Context, c *Command) feed {
	p := c.Parent
	switch {
	case p != nil && strings.HasPrefix(c.Via, "find -"):
		sel := findSelection(p.Argv[1:])
		return feed{placeholder: "{}", sel: &sel}
	case p != nil && c.Via == "xargs":
		return xargsFeed(pc, p)
	}
	return feed{why: c.Text + " gets its operands when it runs"}
}

// xargsFeed is what the xargs command x appends or substitutes: what the command piped into
// it lists.
func xargsFeed(pc *permission.Context, x *Command) feed {
	args := x.Argv[1:]
	inner, replace, _ := xargsReplace(args)
	f := feed{placeholder: xargsInput.Value, split: true}
	if replace != "" {
		f.placeholder = replace
	}
	for _, a := range args[:min(inner, len(args))] {
		v := a.Value
		switch {
		case v == "-a" || strings.HasPrefix(v, "--arg-file") || strings.HasPrefix(v, "-a"):
			f.why = "xargs reads its arguments from a file"
			return f
		case v == "--null" || strings.HasPrefix(v, "-d") || strings.HasPrefix(v, "--delimiter") ||
			len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.Trim(v[1:], "0prtxo") == "" && strings.Contains(v, "0"):
			f.split = false
		}
	}
	prod := x.PipedFrom
	if prod == nil {
		f.why = "xargs reads its arguments from its input, which the analysis does not list"
		return f
	}
	name, _ := commandName(prod.Argv[0])
	pargs := prod.Argv[1:]
	switch name {
	case "printf":
		if len(pargs) > 0 && pargs[0].Known && pargs[0].Value == "--" {
			pargs = pargs[1:]
		}
		if len(pargs) == 0 || !pargs[0].Known || !listFormats[pargs[0].Value] {
			f.why = prod.Text + ": a format the analysis does not follow"
			return f
		}
		f.words = pargs[1:]
	case "echo":
		for len(pargs) > 0 && pargs[0].Known && (pargs[0].Value == "-n" || pargs[0].Value == "-e" || pargs[0].Value == "-E") {
			pargs = pargs[1:]
		}
		f.words = pargs
	case "ls":
		f.words, f.why = lsListing(pc, pargs)
	case "find":
		sel := findSelection(pargs)
		f.sel = &sel
	default:
		f.why = prod.Text + ": the analysis does not know what its output lists"
	}
	return f
}

// lsListing is what ls prints for args, when it is one path a line: the folder's entries
// with no operand, the operands themselves when none is a folder.
func lsListing(pc *permission.Context, args []Word) ([]Word, string) {
	opts, ops := parseArgs(args, optSpec{long: []string{"all", "almost-all", "directory"}})
	for _, o := range opts {
		if strings.Trim(o.name, "-1aAd") != "" && o.name != "--all" && o.name != "--almost-all" && o.name != "--directory" {
			return nil, "ls " + o.name + ": the analysis does not follow what it prints"
		}
	}
	if len(ops) == 0 {
		entries, err := os.ReadDir(pc.Cwd())
		if err != nil || len(entries) > globBudget {
			return nil, "ls: the folder cannot be listed within the count's bounds"
		}
		all := hasOpt(opts, "-a", "-A", "--all", "--almost-all")
		var out []Word
		for _, e := range entries {
			if all || !strings.HasPrefix(e.Name(), ".") {
				out = append(out, Word{Src: quoteWord(e.Name()), Value: e.Name(), Known: true})
			}
		}
		return out, ""
	}
	paths, bad := knownPaths(pc, ops)
	if len(bad) > 0 {
		return nil, bad[0].why
	}
	out := make([]Word, 0, len(paths))
	for _, p := range paths {
		if isDir(p) && !hasOpt(opts, "-d", "--directory") {
			return nil, "ls " + p + " prints the folder's entries by name, relative to it"
		}
		out = append(out, Word{Src: quoteWord(p), Value: p, Known: true})
	}
	return out, ""
}

// pairStashes counts a git stash drop that follows a git stash push in the same folder as
// what the push took: the uncommitted changes of its paths and, with -u or -a, the untracked
// (and ignored) files. Any other drop stays unknown.
func pairStashes(ts []damageTarget) []damageTarget {
	if !slices.ContainsFunc(ts, func(t damageTarget) bool { return t.op == opGitDrop }) {
		return ts
	}
	var out, pushes []damageTarget
	for _, t := range ts {
		switch t.op {
		case opGitStash:
			pushes = append(pushes, t)
			continue
		case opGitDrop:
			i := lastIndex(pushes, func(p damageTarget) bool { return p.dir == t.dir }) // stash@{0}
			if t.why != "" || i < 0 {
				t.why = cmp.Or(t.why, "git stash drop: what the stash holds is not counted")
				out = append(out, t)
				continue
			}
			p := pushes[i]
			pushes = slices.Delete(pushes, i, i+1)
			out = append(out, damageTarget{op: opGitChange, dir: p.dir, staged: true, paths: p.paths})
			if p.untracked {
				out = append(out, damageTarget{op: opGitClean, dir: p.dir, dirs: true, ignored: p.ignored, paths: p.paths})
			}
			continue
		}
		out = append(out, t)
	}
	return out
}

func lastIndex[T any](list []T, f func(T) bool) int {
	for i := len(list) - 1; i >= 0; i-- {
		if f(list[i]) {
			return i
		}
	}
	return -1
}
