package gitcli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/permission"
)

// lossRepo is a repository whose dir/ holds 300 committed files, each changed since the
// commit (work that exists nowhere else), a branch other at the same commit, 300 untracked
// files in new/, and list.txt naming dir's files.
func lossRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: these tests run the real git CLI")
	}
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
	var list strings.Builder
	for i := range 300 {
		write(fmt.Sprintf("dir/f%03d.txt", i), "committed\n")
		fmt.Fprintf(&list, "dir/f%03d.txt\n", i)
	}
	write(".gitignore", "list.txt\n")
	git(t, proj, "init", "-q", "-b", "main")
	git(t, proj, "add", ".")
	git(t, proj, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
	git(t, proj, "branch", "other")
	for i := range 300 {
		write(fmt.Sprintf("dir/f%03d.txt", i), "work in progress\n")
		write(fmt.Sprintf("new/n%03d.txt", i), "untracked work\n")
	}
	write("list.txt", list.String())
	return proj
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}

// lost counts the files of dir/ and new/ whose work is gone: removed, or no longer the
// content they had.
func lost(proj string) int {
	n := 0
	for _, g := range []struct{ glob, want string }{{"dir/f%03d.txt", "work in progress\n"}, {"new/n%03d.txt", "untracked work\n"}} {
		for i := range 300 {
			b, err := os.ReadFile(filepath.Join(proj, fmt.Sprintf(g.glob, i)))
			if err != nil || !bytes.Equal(b, []byte(g.want)) {
				n++
			}
		}
	}
	return n
}

// TestBypassBudgetHoldsForLoopsXargsAndGit: in bypassPermissions with a budget of 100 files,
// every way of destroying 300 files' work in a real repository — a loop over a glob, xargs
// over a listed input, find -exec, while read, and the git commands that discard changes —
// is a safety ask. Each command is then run for real, to show that it does destroy more than
// the budget.
func TestBypassBudgetHoldsForLoopsXargsAndGit(t *testing.T) {
	commands := []string{
		`for f in dir/*; do : > "$f"; done`,
		`for f in dir/*.txt; do truncate -s0 "$f"; done`,
		`for f in dir/*; do rm -- "${f}"; done`,
		`printf '%s\n' dir/* | xargs truncate -s0`,
		`printf '%s\0' dir/* | xargs -0 rm -f`,
		`echo dir/* | xargs rm`,
		`find dir -type f | xargs truncate -s0`,
		`find dir -name '*.txt' -print0 | xargs -0 -I{} rm {}`,
		`find dir -type f -exec truncate -s0 {} +`,
		`find dir -name '*.txt' -exec rm {} \;`,
		`while read f; do : > "$f"; done < list.txt`,
		`xargs rm < list.txt`,
		`cat list.txt | xargs truncate -s0`,
		`git switch -f other`,
		`git switch --discard-changes other`,
		`git checkout -f other`,
		`git checkout HEAD -- dir`,
		`git -C dir checkout -- .`,
		`git rm -rfq dir`,
		`git stash -u && git stash drop`,
		`git stash push --include-untracked -q; git stash drop -q`,
		`git read-tree -u --reset HEAD`,
		`git clean -f -d`,
		`git clean --force -d new`,
		`git -C new clean -fd`,
		`git restore --source=HEAD .`,
		`git restore -s HEAD dir`,
		`git reset -q --hard`,
	}
	budget := &permission.DamageBudget{Files: 100, Bytes: 1 << 30}
	for _, command := range commands {
		t.Run(command, func(t *testing.T) {
			proj := lossRepo(t)
			pc, err := permission.New(permission.Config{Cwd: proj, Mode: permission.ModeBypass, BypassAvailable: true, DamageBudget: budget})
			if err != nil {
				t.Fatal(err)
			}
			d := bashrules.Check(bashrules.WithGit(context.Background(), Git{}), pc, command)
			if d.Behavior != permission.Ask || d.Reason == nil || d.Reason.Type != permission.ReasonSafetyCheck {
				t.Errorf("%s in bypass = %s (%v), want a safety ask; damage %+v", command, d.Behavior, d.Reason, d.Damage)
			}
			if d.Damage == nil || !d.Damage.Over {
				t.Errorf("%s: damage %+v, want over the budget", command, d.Damage)
			}
			cmd := exec.Command("bash", "-c", command)
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+proj, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
			if out, err := cmd.CombinedOutput(); err != nil {
				// git -C new clean -fd removes every file and then fails to remove new/ itself.
				t.Logf("running %s: %v: %s", command, err, out)
			}
			if n := lost(proj); n <= 100 {
				t.Fatalf("%s destroyed %d files' work: the row does not show a loss over the budget", command, n)
			}
		})
	}
}
