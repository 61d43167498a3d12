package bashrules

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// fixture is a project folder with a home and an outside folder next to it.
type fixture struct {
	root, proj, home, outside string
}

// newFixture lays out:
//
//	proj/.env, proj/README.md, proj/src/main.go, proj/sub/, proj/.git/config,
//	proj/link-out -> outside, proj/link-rc -> home/.bashrc (on Unix: check_unix_test.go)
//	proj_evil/x, outside/secret, home/.bashrc, home/.ssh/id_rsa
func newFixture(t testing.TB) fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{root: root, proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home"), outside: filepath.Join(root, "outside")}
	files := map[string]string{
		"proj/.env":         "KEY=secret\n",
		"proj/README.md":    "hello\n",
		"proj/src/main.go":  "package main\n",
		"proj/sub/a.txt":    "a\n",
		"proj/.git/config":  "[core]\n",
		"proj_evil/x":       "x\n",
		"outside/secret":    "s\n",
		"home/.bashrc":      "# rc\n",
		"home/.ssh/id_rsa":  "key\n",
		"proj/notes.txt":    "n\n",
		"proj/data/big.txt": "b\n",
		"proj/opts/-delete": "",
		"proj/opts/a.txt":   "a\n",
		// A repository the agent planted, whose configuration runs a program (issue 39).
		"proj/planted/.git/config": "[core]\n\tfsmonitor = ./x\n",
		"proj/planted/x":           "#!/bin/sh\n",
		// A folder whose file names are options (issue 39).
		"proj/dash/-rf": "",
		"proj/dash/--checkpoint-action=exec=sh x.sh": "",
		"proj/dash/a.txt": "a\n",
	}
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addFixtureLinks(t, f)
	return f
}

// expand replaces {P}, {O}, {H} and {R} with the project, outside, home and root folders, as a
// command of the Bash tool names them: on Windows in Git Bash's form (/c/Users/x), since a
// backslash is an escape to the shell.
func (f fixture) expand(s string) string {
	return strings.NewReplacer("{P}", shellPath(f.proj), "{O}", shellPath(f.outside), "{H}", shellPath(f.home), "{R}", shellPath(f.root)).Replace(s)
}

// shellPath is the absolute path p as Git Bash writes it on Windows (C:\x is /c/x), p itself
// elsewhere.
func shellPath(p string) string {
	if filepath.Separator == '/' {
		return p
	}
	p = filepath.ToSlash(p)
	if len(p) >= 2 && p[1] == ':' {
		p = "/" + strings.ToLower(p[:1]) + p[2:]
	}
	return p
}

// context builds a permission context in mode with rules written as "allow:Bash(x)".
func (f fixture) context(t testing.TB, mode permission.Mode, rules ...string) *permission.Context {
	t.Helper()
	var rs []permission.Rule
	for _, r := range rules {
		beh, text, ok := strings.Cut(r, ":")
		if !ok {
			t.Fatalf("bad rule %q", r)
		}
		var b permission.Behavior
		if err := b.UnmarshalText([]byte(beh)); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, permission.Rule{Value: permission.ParseRule(f.expand(text)), Behavior: b, Source: permission.SourceProject, Root: f.proj})
	}
	pc, err := permission.New(permission.Config{Mode: mode, Cwd: f.proj, Home: f.home, Rules: rs})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// outcome names a decision the way the test tables write it.
func outcome(d permission.Decision) string {
	switch d.Behavior {
	case permission.Allow:
		return "allow"
	case permission.Deny:
		return "deny"
	case permission.Passthrough:
		return "pass"
	}
	if d.Reason != nil {
		switch {
		case d.Reason.Type == permission.ReasonSafetyCheck:
			return "ask:safety"
		case d.Reason.Type == permission.ReasonRule && d.Reason.Rule != nil && d.Reason.Rule.Behavior == permission.Ask:
			return "ask:rule"
		}
	}
	return "ask"
}

// explain renders a decision and its trace for failure messages and for reason checks.
func explain(d permission.Decision, tr *permission.Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s | %s | %s\n", outcome(d), reasonText(d), d.Message)
	if d.Reason != nil {
		for _, s := range d.Reason.Subresults {
			fmt.Fprintf(&b, "  part %q: %s %s\n", s.Command, s.Decision.Behavior, s.Decision.Message)
		}
	}
	for _, s := range tr.Steps() {
		rule := ""
		if s.Rule != nil {
			rule = " rule=" + s.Rule.Value.String()
		}
		fmt.Fprintf(&b, "  %s [%s] %s%s\n", s.Name, s.Outcome, s.Detail, rule)
	}
	return b.String()
}

// decidesAsTraced fails t unless d, the decision on cmd made without a trace, is the one a
// traced run makes: a trace turns the decision's shortcuts off (without names the shortcut).
func decidesAsTraced(t interface{ Fatalf(string, ...any) }, tb testing.TB, pc *permission.Context, cmd string, d permission.Decision, without string) {
	if traced, _ := check(tb, pc, cmd); !reflect.DeepEqual(traced, d) {
		t.Fatalf("%q: with a trace (%s) %s\nwithout %s", cmd, without, explainNoTrace(traced), explainNoTrace(d))
	}
}

func check(t testing.TB, pc *permission.Context, cmd string) (permission.Decision, *permission.Trace) {
	t.Helper()
	tr := &permission.Trace{}
	d := Check(permission.WithTrace(context.Background(), tr), pc, cmd)
	return d, tr
}
