package bashrules

import (
	"context"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// everydayAllows are the allow rules a developer's settings typically hold.
var everydayAllows = []string{"allow:Bash(npm run:*)", "allow:Bash(npm test:*)", "allow:Bash(npm install:*)", "allow:Bash(go test:*)",
	"allow:Bash(go build:*)", "allow:Bash(go vet:*)", "allow:Bash(git status:*)", "allow:Bash(git diff:*)", "allow:Bash(git log:*)",
	"allow:Bash(git add:*)", "allow:Bash(git commit:*)", "allow:Bash(git push:*)", "allow:Bash(git checkout:*)", "allow:Bash(git branch:*)",
	"allow:Bash(git stash:*)", "allow:Bash(git fetch:*)", "allow:Bash(git pull:*)", "allow:Bash(ls:*)", "allow:Bash(grep:*)",
	"allow:Bash(rg:*)", "allow:Bash(find:*)", "allow:Bash(cat:*)", "allow:Bash(mkdir:*)", "allow:Bash(rm:*)", "allow:Bash(cp:*)",
	"allow:Bash(mv:*)", "allow:Bash(sed:*)", "allow:Bash(make:*)", "allow:Bash(cargo:*)", "allow:Bash(python3:*)", "allow:Bash(pytest:*)",
	"allow:Bash(docker:*)", "allow:Bash(kubectl get:*)", "allow:Bash(curl:*)", "allow:Bash(head:*)", "allow:Bash(tail:*)",
	"allow:Bash(wc:*)", "allow:Bash(sort:*)", "allow:Bash(chmod:*)", "allow:Bash(touch:*)", "allow:Bash(tar:*)", "allow:Bash(diff:*)",
	"allow:Bash(du:*)", "allow:Bash(df:*)", "allow:Bash(date:*)", "allow:Bash(ln:*)", "allow:Bash(tee:*)", "allow:Bash(awk:*)",
	"allow:Bash(xargs:*)", "allow:Bash(echo:*)", "allow:Bash(npx:*)", "allow:Bash(node:*)", "allow:Bash(jq:*)", "allow:Bash(gh:*)"}

// everydayCommands are commands developers and agents run all day.
var everydayCommands = []string{
	"npm run build", "npm run test -- --watch=false", "npm test", "npm install --save-dev typescript", "npm i -D eslint",
	"go test ./...", "go test -race -count=1 -run TestX ./pkg/...", "go build -o bin/app ./cmd/app", "go vet ./...",
	"git status", "git status --short", "git diff", "git diff --stat HEAD~1", "git diff --cached --name-only",
	"git log --oneline -n 20", "git log --graph --decorate --all --format='%h %s'", "git add -A", "git add src/main.go",
	"git commit -m 'fix: a bug'", "git commit --amend --no-edit", "git push origin main", "git push -u origin feature",
	"git checkout -b feature", "git checkout main", "git branch -a", "git branch -d old", "git stash", "git stash pop",
	"git fetch --all --prune", "git pull --rebase", "ls -la", "ls -lhS src", "ls --color=auto -1", "grep -rn TODO src",
	"grep -rIl --include='*.go' main .", "grep -E 'a|b' README.md", "rg -n TODO", "rg --files", "rg -tgo -l func",
	"rg -uu --hidden pattern", "find . -name '*.go' -type f", "find . -maxdepth 2 -type d", "find src -newer README.md",
	"cat README.md", "cat -n src/main.go", "mkdir -p build/out", "rm -rf build", "rm -f notes.txt", "cp -r src build",
	"cp README.md README.bak", "mv notes.txt notes.md", "sed -n '1,20p' README.md", "sed -i 's/a/b/' notes.txt",
	"make", "make -j4 test", "cargo build --release", "cargo test", "python3 -m pytest -q", "python3 script.py",
	"pytest -x -k test_a", "docker ps -a", "docker build -t app .", "kubectl get pods -n default", "curl -sS https://example.com",
	"curl -fsSL -o out.json https://example.com/x.json", "head -n 50 README.md", "tail -f log.txt", "tail -n 100 README.md",
	"wc -l src/main.go", "sort -u README.md", "sort -k2 -n -t, data.csv", "chmod +x script.sh", "chmod -R 755 build",
	"touch notes.txt", "tar -czf out.tgz src", "tar xzf out.tgz", "diff -u a.txt b.txt", "du -sh .", "df -h", "date +%s",
	"ln -s src link", "echo hi | tee out.txt", "awk '{print $1}' README.md", "git ls-files | xargs wc -l", "echo done",
	"npx prettier --write src", "node script.js", "jq .name package.json", "gh pr list", "gh pr view 12 --json title",
}

// TestEverydayAsks counts the asks over the everyday corpus, once with no rules and once with
// the usual allow rules: the knowledge base must not make everyday commands ask more.
func TestEverydayAsks(t *testing.T) {
	f := newFixture(t)
	for _, set := range []struct {
		name  string
		rules []string
		max   int
	}{{"no rules", nil, everydayMaxNoRules}, {"everyday allows", everydayAllows, everydayMaxAllows}} {
		pc := f.context(t, permission.ModeDefault, set.rules...)
		asks := 0
		for _, c := range everydayCommands {
			if d := Check(context.Background(), pc, c); d.Behavior != permission.Allow {
				asks++
				if set.rules != nil {
					t.Logf("%s: %s: %s", set.name, c, reasonText(d))
				}
			}
		}
		t.Logf("%s: %d of %d commands ask", set.name, asks, len(everydayCommands))
		if asks > set.max {
			t.Errorf("%s: %d of %d commands ask, at most %d before the knowledge base", set.name, asks, len(everydayCommands), set.max)
		}
	}
}

// The counts on main before the knowledge base (issue 26).
const (
	everydayMaxNoRules = 49
	everydayMaxAllows  = 2
)
