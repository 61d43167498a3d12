package bashrules

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
	"pgregory.net/rapid"
)

// fakeGit answers Status from fixed lists (paths relative to root); root "" is no
// repository, err a git that fails.
type fakeGit struct {
	root               string
	untracked, ignored []string
	changed            []GitChange
	err                error
}

func (g fakeGit) Status(_ context.Context, dir string, _ []string) (GitStatus, error) {
	if g.err != nil {
		return GitStatus{}, g.err
	}
	if g.root == "" {
		return GitStatus{}, nil
	}
	abs := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			a := filepath.Join(g.root, p)
			if strings.HasSuffix(p, "/") {
				a += "/"
			}
			out = append(out, a)
		}
		return out
	}
	var ch []GitChange
	for _, c := range g.changed {
		c.Path = filepath.Join(g.root, c.Path)
		ch = append(ch, c)
	}
	return GitStatus{Root: g.root, Untracked: abs(g.untracked), Ignored: abs(g.ignored), Changed: ch}, nil
}

// damageTree makes a project folder with the files named (relative paths, each with
// content of its own length) and n files below each of the folders in many.
func damageTree(t testing.TB, files []string, many map[string]int) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	write := func(rel, content string) {
		p := filepath.Join(proj, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		write(f, f)
	}
	for dir, n := range many {
		for i := range n {
			write(fmt.Sprintf("%s/f%05d.js", dir, i), "x")
		}
	}
	return proj
}

func damageContext(t testing.TB, proj string, mode permission.Mode, budget *permission.DamageBudget, rules ...string) *permission.Context {
	t.Helper()
	var rs []permission.Rule
	for _, r := range rules {
		beh, text, _ := strings.Cut(r, ":")
		var b permission.Behavior
		if err := b.UnmarshalText([]byte(beh)); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, permission.Rule{Value: permission.ParseRule(text), Behavior: b, Source: permission.SourceProject, Root: proj})
	}
	pc, err := permission.New(permission.Config{Mode: mode, Cwd: proj, Home: filepath.Join(filepath.Dir(proj), "home"), Rules: rs, DamageBudget: budget, BypassAvailable: true})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// fourChanges is a repository where src/a.go, b.go and c.go have changes and README.md a
// staged one.
var fourChanges = fakeGit{root: "{P}", changed: []GitChange{{Path: "src/a.go", Work: true}, {Path: "src/b.go", Work: true}, {Path: "src/c.go", Work: true}, {Path: "README.md", Staged: true}}}

var everydayTree = []string{"src/a.go", "src/b.go", "src/c.go", "src/.env", "src/d/e.go", "README.md", "app.log", "debug.log", "out.txt", "dest/a.go", "keep.txt"}

// TestDamage holds the damage count and its budget to each row's reason: what is counted
// for each kind of command, that a command over the budget asks as a safety check whatever
// rule or mode allows it, and what is not counted.
func TestDamage(t *testing.T) {
	small := &permission.DamageBudget{Files: 3, Bytes: 1 << 20}
	tests := []struct {
		name   string
		cmd    string
		mode   permission.Mode
		rules  []string
		budget *permission.DamageBudget
		git    Git
		want   string // the decision's outcome, through the engine
		files  int64  // the count; -1 for no count at all
		check  func(*permission.Damage) string
	}{
		{name: "over budget asks under an allow rule: rm -rf src removes 5 files, the budget is 3",
			cmd: "rm -rf src", rules: []string{"allow:Bash(rm:*)"}, budget: small, git: fakeGit{}, want: "ask:safety", files: 5},
		{name: "over budget asks in bypassPermissions",
			cmd: "rm -rf src", mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 5},
		{name: "over budget asks under a tool-wide allow",
			cmd: "rm -rf src", rules: []string{"allow:Bash"}, budget: small, git: fakeGit{}, want: "ask:safety", files: 5},
		{name: "under budget the allow rule decides: the default budget holds 5 files",
			cmd: "rm -rf src", rules: []string{"allow:Bash(rm:*)"}, git: fakeGit{}, want: "allow", files: 5},
		{name: "an untracked node_modules is rebuilt, not counted, though it holds more than the budget",
			cmd: "rm -rf node_modules", rules: []string{"allow:Bash(rm:*)"}, budget: small, git: fakeGit{root: "{P}", untracked: []string{"node_modules/"}}, want: "allow", files: 0,
			check: func(d *permission.Damage) string {
				if len(d.Regenerable) != 1 || !strings.HasSuffix(d.Regenerable[0], "node_modules") {
					return fmt.Sprintf("regenerable = %v, want node_modules", d.Regenerable)
				}
				return ""
			}},
		{name: "an ignored dist is not counted either", cmd: "rm -rf dist", mode: permission.ModeBypass, budget: small,
			git: fakeGit{root: "{P}", ignored: []string{"dist/"}}, want: "allow", files: 0},
		{name: "a tracked build folder is someone's work: counted", cmd: "rm -rf node_modules", mode: permission.ModeBypass, budget: small,
			git: fakeGit{root: "{P}"}, want: "ask:safety", files: 30},
		{name: "without git inside a repository a build folder is counted (fail closed)", cmd: "rm -rf node_modules", mode: permission.ModeBypass, budget: small,
			git: fakeGit{err: fmt.Errorf("git is broken")}, want: "ask:safety", files: 30},
		{name: "an ignored .env among the files is named", cmd: "rm -rf src", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", ignored: []string{"src/.env"}, untracked: []string{"src/d/"}}, want: "allow", files: 5,
			check: func(d *permission.Damage) string {
				if d.Ignored != 1 || len(d.IgnoredPaths) != 1 || filepath.Base(d.IgnoredPaths[0]) != ".env" {
					return fmt.Sprintf("ignored = %d %v, want the .env", d.Ignored, d.IgnoredPaths)
				}
				if d.Untracked != 1 || filepath.Base(d.UntrackedPaths[0]) != "e.go" {
					return fmt.Sprintf("untracked = %d %v, want d/e.go", d.Untracked, d.UntrackedPaths)
				}
				return ""
			}},
		{name: "globs are expanded: *.log is two files", cmd: "rm -f *.log", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 2},
		{name: "a glob over the budget asks", cmd: "rm -f src/*.go *.log", mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 5},
		{name: "rm without -r removes no folder", cmd: "rm src", mode: permission.ModeBypass, git: fakeGit{}, files: -1, want: "allow"},
		{name: "a walk that hits its bound is a floor, over budget", cmd: "rm -rf many", mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 39,
			check: func(d *permission.Damage) string {
				if !d.AtLeast {
					return "AtLeast is not set"
				}
				return ""
			}},
		{name: "> truncates an existing file", cmd: "echo hi > out.txt", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 1},
		{name: ">> appends: nothing lost", cmd: "echo hi >> out.txt", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: -1},
		{name: "> a new file loses nothing", cmd: "echo hi > new.txt", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: -1},
		{name: "mv onto an existing file overwrites it", cmd: "mv keep.txt out.txt", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 1},
		{name: "cp -r over a folder overwrites what both have", cmd: "cp -r src/a.go src/b.go dest", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 1},
		{name: "cp -n overwrites nothing", cmd: "cp -n keep.txt out.txt", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: -1},
		{name: "find -delete follows one -name test: 4 .go files (and asks as an exec-family option anyway)", cmd: "find src -name '*.go' -delete", mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 4},
		{name: "find -delete with an expression it does not follow counts everything below its start", cmd: "find src -name '*.go' -o -name x -delete", mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 5},
		{name: "truncate -s 0 destroys, -s +1 does not", cmd: "truncate -s 0 app.log && truncate -s +1 debug.log", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 1},
		// The entries say which options take a value: shred's --remove takes one only after =.
		{name: "shred and unlink destroy their operands", cmd: "shred -n 3 --remove app.log && unlink debug.log", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 2},
		{name: "tee -a keeps, tee overwrites", cmd: "echo x | tee -a app.log | tee debug.log", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 1},
		{name: "rsync --delete removes what the source lacks", cmd: "rsync -a --delete dest/ src/", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 4},
		{name: "git clean -fdx removes untracked and ignored files", cmd: "git clean -fdx", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", untracked: []string{"keep.txt", "src/d/"}, ignored: []string{"src/.env"}}, want: "allow", files: 3},
		{name: "git clean -fd keeps ignored files", cmd: "git clean -fd", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", untracked: []string{"keep.txt"}, ignored: []string{"src/.env"}}, want: "allow", files: 1},
		{name: "git clean -n is a dry run", cmd: "git clean -ndx", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", untracked: []string{"keep.txt"}}, want: "allow", files: -1},
		{name: "git clean without git cannot be counted: asks", cmd: "git clean -fdx", mode: permission.ModeBypass,
			git: fakeGit{err: fmt.Errorf("git is not installed")}, want: "ask:safety", files: 0},
		{name: "git checkout -- . discards the work tree's changes", cmd: "git checkout -- .", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", changed: []GitChange{{Path: "src/a.go", Work: true}, {Path: "README.md", Staged: true}}}, want: "allow", files: 1},
		{name: "git reset --hard discards staged changes too", cmd: "git reset --hard", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", changed: []GitChange{{Path: "src/a.go", Work: true}, {Path: "README.md", Staged: true}}}, want: "allow", files: 2},
		{name: "git checkout of a branch discards nothing", cmd: "git checkout main", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", changed: []GitChange{{Path: "src/a.go", Work: true}}}, want: "allow", files: -1},
		{name: "git restore --staged keeps the work tree", cmd: "git restore --staged src/a.go", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", changed: []GitChange{{Path: "src/a.go", Work: true}}}, want: "allow", files: -1},

		// Loops: the body is counted once per value of the list.
		{name: "a loop over a glob empties each match: 60 files", cmd: `for f in many/*; do : > "$f"; done`, mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 60},
		{name: "a loop within the budget", cmd: `for f in src/*.go; do : > "$f"; done`, mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 3},
		{name: "a loop over a glob and a word, ${f}", cmd: `for f in src/*.go README.md; do truncate -s 0 "${f}"; done`, mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 4},
		{name: "a loop's cp overwrites each value", cmd: `for f in src/*.go; do cp keep.txt "$f"; done`, mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "allow", files: 3},
		{name: "a loop over a command's output cannot be counted", cmd: `for f in $(ls); do rm "$f"; done`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a loop variable set again in the body cannot be counted", cmd: `for f in src/*; do f=x; rm "$f"; done`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		// Builtins whose entries say setsvars or shelltext set it too.
		{name: "a loop variable read in the body cannot be counted", cmd: `for f in src/*; do read f; rm "$f"; done`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a loop variable set by printf -v cannot be counted", cmd: `for f in src/*; do printf -v f x; rm "$f"; done`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a loop variable an eval may set cannot be counted", cmd: `for f in src/*; do eval g=1; rm "$f"; done`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a loop's mv onto a name built from the variable cannot be counted", cmd: `for f in src/*.go; do mv "$f" "$f.bak"; done`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a while read loop cannot be counted", cmd: `while read f; do : > "$f"; done < list.txt`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a quoted variable names one file: counted as one (rm of an unknown path asks on its own)", cmd: `x=a.txt; rm "$x"`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 1},
		{name: "a quoted variable truncated: one file, within the budget", cmd: `truncate -s0 "$x"`, mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 1},
		{name: "a redirect to a quoted variable empties one file", cmd: `ls > "$OUT"`, mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 1},
		{name: "a temporary file from mktemp is one file", cmd: `f=$(mktemp) && echo x > "$f" && cat "$f"`, rules: []string{"allow:Bash"}, git: fakeGit{}, want: "allow", files: 1},
		{name: "one file each, over a budget of 3", cmd: `truncate -s0 "$a" "$b" "$c" "$d"`, mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 4},
		{name: "an unquoted variable may split into many files", cmd: `rm $x`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a quoted variable removed recursively cannot be counted", cmd: `rm -r "$x"`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: `"$@" is many words`, cmd: `rm "$@"`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: `"${a[@]}" is many words`, cmd: `rm "${a[@]}"`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: `"${x:-"$@"}" is many words`, cmd: `rm "${x:-"$@"}"`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "an indirect expansion may name @", cmd: `rm "${!x}"`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a function may run its body many times", cmd: `f() { rm "$1"; }; f a; f b`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "a script another shell runs may be run many times", cmd: `sh -c 'rm "$1"' _ a`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "xargs runs its command for each input", cmd: `printf '%s\n' a b | xargs -I{} sh -c 'rm "$0"' {}`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},

		// xargs over a listed input, and find -exec over what find selects.
		{name: "printf of a glob into xargs truncate", cmd: `printf '%s\n' many/* | xargs truncate -s0`, mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 60},
		// xargs rm of operands it reads asks anyway (a removal of an unknown path): the count is
		// within the budget.
		{name: "printf of a glob into xargs -0 rm, within the budget", cmd: `printf '%s\0' src/*.go | xargs -0 rm -f`, mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 3},
		{name: "echo of a glob into xargs rm", cmd: "echo src/*.go | xargs rm", mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 3},
		{name: "printf of a glob into xargs truncate, within the budget", cmd: `printf '%s\n' src/*.go | xargs truncate -s0`, mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: 3},
		{name: "find -name into xargs rm", cmd: "find src -name '*.go' | xargs rm", mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 4},
		{name: "ls into xargs rm removes the folder's files", cmd: "ls | xargs rm", mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 5},
		{name: "ls of a folder into xargs cannot be counted", cmd: "ls src | xargs rm", mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "xargs -I with the name inside a word cannot be counted", cmd: "ls | xargs -I{} rm src/{}", mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "xargs reading a file cannot be counted", cmd: "xargs rm < list.txt", mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "cat into xargs cannot be counted", cmd: "cat list.txt | xargs truncate -s0", mode: permission.ModeBypass, git: fakeGit{}, want: "ask:safety", files: 0},
		{name: "xargs truncate that only grows destroys nothing", cmd: "cat list.txt | xargs truncate -s +1", mode: permission.ModeBypass, git: fakeGit{}, want: "allow", files: -1},
		{name: "find -exec truncate of what find selects", cmd: "find src -name '*.go' -exec truncate -s0 {} +", mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 4},
		{name: "find -execdir rm of everything below", cmd: "find src -execdir rm {} +", mode: permission.ModeBypass, budget: small, git: fakeGit{}, want: "ask:safety", files: 5},

		// git forms that discard work: src/a.go, b.go, c.go changed, README.md staged.
		{name: "git switch -f discards every change", cmd: "git switch -f other", mode: permission.ModeBypass, budget: small, git: fourChanges, want: "ask:safety", files: 4},
		{name: "git switch --discard-changes", cmd: "git switch --discard-changes other", mode: permission.ModeBypass, budget: small, git: fourChanges, want: "ask:safety", files: 4},
		{name: "git switch alone keeps changes", cmd: "git switch other", mode: permission.ModeBypass, budget: small, git: fourChanges, want: "allow", files: -1},
		{name: "git rm -r removes the tracked files below", cmd: "git rm -rf src", mode: permission.ModeBypass, budget: small,
			git: fakeGit{root: "{P}", untracked: []string{"src/d/"}}, want: "ask:safety", files: 4},
		{name: "git rm --cached keeps the files", cmd: "git rm -r --cached src", mode: permission.ModeBypass, budget: small, git: fourChanges, want: "allow", files: -1},
		{name: "git stash -u then drop destroys the changes and the untracked files", cmd: "git stash -u && git stash drop", mode: permission.ModeBypass, budget: small,
			git: fakeGit{root: "{P}", untracked: []string{"keep.txt"}, changed: fourChanges.changed}, want: "ask:safety", files: 5},
		{name: "git stash alone keeps them", cmd: "git stash -u", mode: permission.ModeBypass, budget: small, git: fourChanges, want: "allow", files: -1},
		{name: "git stash drop of an earlier stash cannot be counted", cmd: "git stash drop", mode: permission.ModeBypass, git: fourChanges, want: "ask:safety", files: 0},
		{name: "git read-tree -u --reset discards every change", cmd: "git read-tree -u --reset HEAD", mode: permission.ModeBypass, budget: small, git: fourChanges, want: "ask:safety", files: 4},
		{name: "git -C follows the folder", cmd: "git -C src checkout -- .", mode: permission.ModeBypass, budget: &permission.DamageBudget{Files: 2, Bytes: 1 << 20}, git: fourChanges, want: "ask:safety", files: 3},
		{name: "git --work-tree elsewhere cannot be counted", cmd: "git --work-tree=/elsewhere checkout -- .", mode: permission.ModeBypass, git: fourChanges, want: "ask:safety", files: 0},
		{name: "git clean -f -d -x, the options apart", cmd: "git clean -f -d -x", mode: permission.ModeBypass,
			git: fakeGit{root: "{P}", untracked: []string{"keep.txt", "src/d/"}, ignored: []string{"src/.env"}}, want: "allow", files: 3},
		{name: "git restore --source= discards staged changes too", cmd: "git restore --source=HEAD~1 .", mode: permission.ModeBypass, budget: small, git: fourChanges, want: "ask:safety", files: 4},
		{name: "git checkout of a pathspec pattern", cmd: "git checkout -- '*.go'", mode: permission.ModeBypass, budget: small, git: fourChanges, want: "allow", files: 3},
		{name: "a budget of 0 files asks for any loss", cmd: "echo hi > out.txt", mode: permission.ModeBypass, budget: &permission.DamageBudget{Files: 0, Bytes: 1 << 20},
			git: fakeGit{}, want: "ask:safety", files: 1},
		{name: "the bytes budget counts too", cmd: "rm -rf src", mode: permission.ModeBypass, budget: &permission.DamageBudget{Files: 100, Bytes: 10},
			git: fakeGit{}, want: "ask:safety", files: 5},
	}
	old := maxDamageEntries
	maxDamageEntries = 40
	defer func() { maxDamageEntries = old }()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proj := damageTree(t, everydayTree, map[string]int{"node_modules": 30, "dist": 20, "many": 60})
			if fg, ok := tt.git.(fakeGit); ok && fg.root == "{P}" {
				fg.root = proj
				tt.git = fg
			}
			mode := tt.mode
			if mode == "" {
				mode = permission.ModeDefault
			}
			pc := damageContext(t, proj, mode, tt.budget, tt.rules...)
			tr := &permission.Trace{}
			ctx := WithGit(permission.WithTrace(context.Background(), tr), tt.git)
			var e permission.Engine
			d, err := e.Decide(ctx, pc, bashTool{}, map[string]any{"command": tt.cmd})
			if err != nil {
				t.Fatal(err)
			}
			if got := outcome(d); got != tt.want {
				t.Errorf("%q = %s, want %s\n%s", tt.cmd, got, tt.want, explain(d, tr))
			}
			dmg := Check(ctx, pc, tt.cmd).Damage
			switch {
			case tt.files < 0 && dmg != nil:
				t.Errorf("%q counted %+v, want no count", tt.cmd, *dmg)
			case tt.files >= 0 && dmg == nil:
				t.Errorf("%q has no count, want %d files\n%s", tt.cmd, tt.files, explain(d, tr))
			case tt.files >= 0 && dmg.Files != tt.files:
				t.Errorf("%q counted %d files (%v), want %d", tt.cmd, dmg.Files, dmg.Paths, tt.files)
			case tt.check != nil:
				if msg := tt.check(dmg); msg != "" {
					t.Errorf("%q: %s", tt.cmd, msg)
				}
			}
			if tt.files >= 0 && !slices.ContainsFunc(tr.Steps(), func(s permission.Step) bool { return s.Name == "bash: damage" }) {
				t.Errorf("%q: no trace line names the damage step", tt.cmd)
			}
		})
	}
}

// TestPropertyDamageCountsWhatRmRemoves: for any tree of folders and files, the count of
// rm -rf is the number of regular files a real rm -rf of it removes.
func TestPropertyDamageCountsWhatRmRemoves(t *testing.T) {
	rm, err := exec.LookPath("rm")
	if err != nil {
		t.Skip("rm is not installed: the property compares the count with a real rm -rf")
	}
	rapid.Check(t, func(rt *rapid.T) {
		proj := damageTree(t, nil, nil)
		target := filepath.Join(proj, "victim")
		dirs := []string{target}
		n := rapid.IntRange(0, 40).Draw(rt, "entries")
		for i := range n {
			parent := dirs[rapid.IntRange(0, len(dirs)-1).Draw(rt, "parent")]
			name := rapid.SampledFrom([]string{"a", "b", ".env", "x y", "node_modules", "dist", "-rf", "*"}).Draw(rt, "name") + fmt.Sprint(i)
			p := filepath.Join(parent, name)
			if rapid.Bool().Draw(rt, "dir") {
				dirs = append(dirs, p)
				continue
			}
			size := rapid.IntRange(0, 64).Draw(rt, "size")
			if err := os.MkdirAll(parent, 0o755); err != nil {
				rt.Fatal(err)
			}
			if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		for _, d := range dirs {
			if err := os.MkdirAll(d, 0o755); err != nil {
				rt.Fatal(err)
			}
		}
		var files, bytes int64
		_ = filepath.WalkDir(target, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				fi, _ := d.Info()
				files++
				bytes += fi.Size()
			}
			return nil
		})
		// git reports everything tracked, so folders named like build output are counted
		// like any other.
		pc := damageContext(t, proj, permission.ModeBypass, nil)
		d := Check(WithGit(context.Background(), fakeGit{root: proj}), pc, "rm -rf victim").Damage
		var got, gotBytes int64
		if d != nil {
			got, gotBytes = d.Files, d.Bytes
		}
		if out, err := exec.Command(rm, "-rf", target).CombinedOutput(); err != nil {
			rt.Fatalf("rm -rf: %v: %s", err, out)
		}
		if _, err := os.Lstat(target); err == nil {
			rt.Fatalf("rm -rf left %s", target)
		}
		if got != files || gotBytes != bytes {
			rt.Fatalf("count %d files, %d bytes; rm -rf removed %d regular files of %d bytes", got, gotBytes, files, bytes)
		}
	})
}

// everydayDestruction are commands an agent runs every day that delete or overwrite files:
// build and dependency folders, logs, a file or two restored or rewritten. The default
// budget must not ask for any of them.
var everydayDestruction = []string{
	"rm -rf node_modules", "rm -rf dist", "rm -rf build", "rm -rf target", "rm -rf .next", "rm -rf __pycache__",
	"rm -rf node_modules dist && npm install", "rm -f *.log", "rm -rf coverage .pytest_cache", "rm src/a.go",
	"echo done > out.txt", "go test ./... > out.txt 2>&1", "cp keep.txt out.txt", "mv keep.txt out.txt",
	"git checkout -- src/a.go", "git restore src/b.go", "git clean -fd", "truncate -s 0 app.log", "find . -name '*.pyc' -delete",
}

// TestDamageBudgetKeepsEverydayCommandsQuiet compares every row of the check tables and the
// everyday destructive commands with the default budget and with no budget at all (as before
// the count existed): the number that ask must be the same.
func TestDamageBudgetKeepsEverydayCommandsQuiet(t *testing.T) {
	f := newFixture(t)
	none := &permission.DamageBudget{Files: 1 << 62, Bytes: 1 << 62}
	asks := func(budget *permission.DamageBudget) (n int, over []string) {
		for _, c := range checkCases {
			pc, err := permission.New(permission.Config{Mode: cmp.Or(c.mode, permission.ModeDefault), Cwd: f.proj, Home: f.home, Rules: f.context(t, permission.ModeDefault, c.rules...).Rules(), DamageBudget: budget, BypassAvailable: true})
			if err != nil {
				t.Fatal(err)
			}
			d := Check(t.Context(), pc, f.expand(c.cmd))
			if d.Behavior == permission.Ask {
				n++
			}
			if d.Damage != nil && d.Damage.Over {
				over = append(over, c.cmd)
			}
		}
		return n, over
	}
	// A command whose damage cannot be counted asks whatever the budget: only a count over
	// the default budget and not over none would be the budget's doing.
	before, overAnyway := asks(none)
	after, over := asks(nil)
	over = slices.DeleteFunc(over, func(c string) bool { return slices.Contains(overAnyway, c) })
	t.Logf("check tables: %d rows, %d ask without a budget, %d with the default budget; %d cannot be counted", len(checkCases), before, after, len(overAnyway))
	if before != after || len(over) > 0 {
		t.Errorf("the default budget changes the check tables: %d asks before, %d after; over budget: %v", before, after, over)
	}

	proj := damageTree(t, everydayTree, map[string]int{"node_modules/react": 3000, "node_modules/.bin": 40, "dist": 300, "build": 200,
		"target/debug": 800, ".next/cache": 500, "__pycache__": 60, "coverage": 120, ".pytest_cache": 10})
	g := fakeGit{root: proj, untracked: []string{"keep.txt"}, ignored: []string{"node_modules/", "dist/", "build/", "target/", ".next/", "__pycache__/", "coverage/", ".pytest_cache/", "*.log", "app.log", "debug.log", "out.txt"},
		changed: []GitChange{{Path: "src/a.go", Work: true}, {Path: "src/b.go", Work: true}}}
	var askBefore, askAfter int
	for _, cmd := range everydayDestruction {
		var got [2]permission.Behavior
		for i, budget := range []*permission.DamageBudget{none, nil} {
			pc := damageContext(t, proj, permission.ModeDefault, budget, "allow:Bash")
			var e permission.Engine
			d, err := e.Decide(WithGit(t.Context(), g), pc, bashTool{}, map[string]any{"command": cmd})
			if err != nil {
				t.Fatal(err)
			}
			got[i] = d.Behavior
			if d.Damage != nil && d.Damage.Over {
				t.Errorf("%q is over the default budget: %s", cmd, DamageWords(d.Damage))
			}
		}
		if got[0] != permission.Allow {
			askBefore++
		}
		if got[1] != permission.Allow {
			askAfter++
		}
	}
	if askBefore != askAfter {
		t.Errorf("everyday destructive commands under allow:Bash: %d ask without a budget, %d with the default one", askBefore, askAfter)
	}
	t.Logf("everyday destructive commands: %d; under allow:Bash %d ask without a budget (find -delete, an exec-family option), %d with the default budget", len(everydayDestruction), askBefore, askAfter)
}
