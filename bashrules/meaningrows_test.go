package bashrules

import (
	"strings"
)

// Rows of the command table for one class of docs/security.md "Effects, names and meaning";
// every row names the reason its decision or trace must show.

// meaningCases: deny and ask rules match the meaning, not the spelling.
var meaningCases = func() []checkCase {
	var out []checkCase
	rmSpellings := []string{"rm -rf x", "rm -Rf x", "rm -fr x", "rm -fR x", "rm -r -f x", "rm -f -r x", "rm -R -f x",
		"rm --recursive --force x", "rm --force --recursive x", "rm --rec --for x", "rm --recur --forc x", "rm -v -rf x",
		"rm -rfv x", "rm -vfr x", "rm -R --force x", "rm --recursive -f x", "rm x -rf", "rm -r x -f", "/bin/rm -rf x",
		"/usr/bin/rm -fr x", "sudo rm -fr x", "timeout 5 rm -Rf x", "env rm -r -f x", "nice rm --recursive --force x",
		"command rm -fr x", "bash -c 'rm -fr x'", "eval rm -fr x", "(rm -fr x)", "echo $(rm -fr x)", "xargs rm -fr",
		"npx rm -fr x", "uvx rm --recursive --force x", "find . -exec rm -fr {} +", "rm -i -rf x", "\\rm -fR x"}
	for _, c := range rmSpellings {
		out = append(out, checkCase{"meaning", c, r(denyRmRf), "", "deny", "rm -rf:*"})
		// find -exec is an exec-family option: with an ask rule in force it is a safety ask,
		// which outranks the ask rule its child meets (the trace still names the rule). So is
		// xargs rm with nothing piped in: what it removes cannot be counted (damage budget).
		want := "ask:rule"
		if strings.HasPrefix(c, "find ") || strings.HasPrefix(c, "xargs ") {
			want = "ask:safety"
		}
		out = append(out, checkCase{"meaning", c, r(askRmRf), "", want, "rm -rf:*"})
	}
	for _, c := range []string{"rm -r x", "rm -f x", "rm --force x", "rm -v x"} {
		out = append(out, checkCase{"meaning", c, r(denyRmRf), "", "pass", "no rule allows"})
	}
	forceSpellings := []string{"git push -f", "git push --force", "git push origin main --force", "git push origin +main",
		"git push origin +HEAD:main", "git push --force-with-lease", "git push --force-with-lease=main:abc origin main",
		"git push --for origin main", "git push --force-if-includes", "git -C . push -f", "git push -fu origin main",
		"git push -uf origin main", "sudo git push -f", "git push -v --force origin", "git --no-pager push origin -f main"}
	for _, c := range forceSpellings {
		out = append(out, checkCase{"meaning", c, r(denyForce), "", "deny", "git push --force:*"})
		out = append(out, checkCase{"meaning", c, r(askForce), "", "ask:rule", "git push --force:*"})
	}
	for _, c := range []string{"git push", "git push origin main", "git push -u origin main"} {
		out = append(out, checkCase{"meaning", c, r(denyForce), "", "pass", "no rule allows"})
	}
	more := []struct{ rule, cmd string }{
		{"deny:Bash(git push --delete:*)", "git push origin :main"},
		{"deny:Bash(git push --delete:*)", "git push -d origin x"},
		{"deny:Bash(git push --delete:*)", "git push origin --delete x"},
		{"deny:Bash(git branch -D:*)", "git branch -D x"},
		{"deny:Bash(git branch -D:*)", "git branch --delete --force x"},
		{"deny:Bash(git branch -D:*)", "git branch -d -f x"},
		{"deny:Bash(git branch -D:*)", "git branch -df x"},
		{"deny:Bash(git reset --hard:*)", "git reset --har"},
		{"deny:Bash(git reset --hard:*)", "git reset HEAD~1 --hard"},
		{"deny:Bash(git clean -f:*)", "git clean -fdx"},
		{"deny:Bash(git clean -f:*)", "git clean -d --force"},
		{"deny:Bash(git checkout -f:*)", "git checkout --force main"},
		{"deny:Bash(chmod -R:*)", "chmod --recursive 777 x"},
		{"deny:Bash(chmod -R:*)", "chmod 777 -R x"},
		{"deny:Bash(cp -r:*)", "cp -R a b"},
		{"deny:Bash(cp -r:*)", "cp --recursive a b"},
		{"deny:Bash(npm publish:*)", "npm publ"},
		{"deny:Bash(npm publish:*)", "npm pub --tag beta"},
		{"deny:Bash(npm publish:*)", "npm --tag beta publish"},
		{"deny:Bash(npm uninstall:*)", "npm rm left-pad"},
		{"deny:Bash(terraform destroy:*)", "terraform -chdir=x destroy"},
		{"deny:Bash(terraform destroy:*)", "terraform destroy -auto-approve"},
		{"deny:Bash(kubectl delete:*)", "kubectl --context prod delete pod x"},
		{"deny:Bash(kubectl delete:*)", "kubectl -n x delete pod y"},
		{"deny:Bash(kubectl delete:*)", "kubectl --namespace=x delete pod y"},
		{"deny:Bash(docker rm:*)", "docker --host tcp://x rm c"},
		{"deny:Bash(docker rm:*)", "docker -H x rm c"},
		{"deny:Bash(rm -rf x)", "rm -fr x"},
		{"deny:Bash(rm -rf x)", "rm --force --recursive x"},
	}
	for _, m := range more {
		out = append(out, checkCase{"meaning", m.cmd, r(m.rule), "", "deny", strings.TrimSuffix(strings.TrimPrefix(m.rule, "deny:Bash("), ")")})
	}
	out = append(out,
		checkCase{"meaning", "rm -rf x y", r("deny:Bash(rm -rf x)"), "", "pass", "no rule allows"},
		checkCase{"meaning", "npm publish", r("allow:Bash(npm publ:*)"), "", "pass", "no rule allows"},
		checkCase{"meaning", "rm -fr x", r("allow:Bash(rm -rf:*)"), "", "pass", "no rule allows"},
	)
	// Launchers and wrappers: deny rules see through them.
	for _, c := range []string{"devbox run rm -f x", "npx rm -f x", "pnpm dlx rm -f x", "pnpm exec rm -f x", "yarn dlx rm -f x",
		"yarn exec rm -f x", "bunx rm -f x", "bun x rm -f x", "uvx rm -f x", "pipx run rm -f x", "uv run rm -f x",
		"uv run --with x rm -f x", "poetry run rm -f x", "pdm run rm -f x", "mise exec -- rm -f x", "mise exec node@20 -- rm -f x",
		"direnv exec . rm -f x", "nix-shell --run 'rm -f x'", "nix-shell -p hello --run 'rm -f x'", "flock /tmp/l rm -f x",
		"script -c 'rm -f x'", "unbuffer rm -f x", "parallel rm ::: x", "chrt 10 rm -f x", "taskset 1 rm -f x",
		"ionice -c3 rm -f x", "setsid rm -f x", "stdbuf -o0 rm -f x", "conda run -n x rm -f x", "op run -- rm -f x",
		"doppler run -- rm -f x", "aws-vault exec p -- rm -f x", "bundle exec rm -f x", "docker exec c rm -f x",
		"kubectl exec p -- rm -f x", "npm exec -- rm -f x", "npm x rm -f x", "pixi run rm -f x", "hatch run rm -f x"} {
		out = append(out, checkCase{"meaning", c, r(denyRm), "", "deny", "rm:*"})
	}
	// A prefix or wildcard allow rule does not cover a later word a deny or ask rule names.
	out = append(out,
		checkCase{"meaning", "devbox run rm -f x", r("allow:Bash(devbox run *)", "deny:Bash(rm *)"), "", "deny", "rm *"},
		checkCase{"meaning", "just rm -f x", r("allow:Bash(just:*)", denyRm), "", "deny", "rm:*"},
		checkCase{"meaning", "mytool --flag rm -rf x", r("allow:Bash(mytool *)", denyRmRf), "", "deny", "rm -rf:*"},
		checkCase{"meaning", "mytool git push -f", r("allow:Bash(mytool *)", askForce), "", "ask:rule", "git push --force:*"},
		checkCase{"meaning", "npm run curl http://x", r("allow:Bash(npm run *)", "deny:Bash(curl:*)"), "", "deny", "curl:*"},
		checkCase{"meaning", "devbox run make", r("allow:Bash(devbox run *)", "deny:Bash(rm *)"), "", "allow", "devbox run *"},
		checkCase{"meaning", "mytool build", r("allow:Bash(mytool *)", denyRm), "", "allow", "mytool *"},
	)
	return out
}()

func init() { checkCases = append(checkCases, meaningCases...) }
