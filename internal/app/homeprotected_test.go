package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/files"
)

// homeRunsCode are files in the home folder that run code at login or on a schedule, or grant
// access to the machine, relative to the home folder.
var homeRunsCode = []string{
	".ssh/authorized_keys", ".ssh/authorized_keys2", ".ssh/config", ".ssh/rc", ".ssh/environment",
	".config/systemd/user/evil.service", ".config/systemd/user/timers.target.wants/evil.timer",
	".local/bin/ls", "bin/git", ".config/autostart/evil.desktop", ".config/environment.d/10-path.conf",
	".bashrc.d/evil.sh", ".config/fish/config.fish", ".config/fish/conf.d/evil.fish", ".pam_environment",
	".xprofile", ".xinitrc", ".xsession", ".xsessionrc", "Library/LaunchAgents/evil.plist",
	".aws/config", ".kube/config", ".docker/config.json", ".tmux.conf", ".vimrc", ".config/nvim/init.lua",
	".local/share/applications/firefox.desktop", ".config/pip/pip.conf", ".pip/pip.conf", ".curlrc", ".wgetrc",
	".local/lib/python3.12/site-packages/evil.pth", ".local/lib/python3.12/site-packages/usercustomize.py",
}

// TestHomeFilesThatRunCodeAskInEveryMode: a write to a home file that runs code or grants access
// asks as a safety check in every mode, bypassPermissions and an allow rule for the whole home
// folder included, through Edit, Write, NotebookEdit and Bash redirects and writers: the real
// tools decided by the engine, on a real home folder.
func TestHomeFilesThatRunCodeAskInEveryMode(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "proj")
	for _, d := range []string{home, proj, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// One of them exists already (an edit of it), the rest are new files.
	if err := os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host *\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fopts := files.Options{}
	edit, write, notebook := files.NewEdit(fopts), files.NewWrite(fopts), files.NewNotebookEdit(fopts)
	bt := bash.New(bash.Options{}).BashTool()
	input := func(t *testing.T, tl tool.Tool, v any) any {
		t.Helper()
		b, _ := json.Marshal(v)
		in, err := tl.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	for _, mode := range []permission.Mode{permission.ModeBypass, permission.ModeAcceptEdits, permission.ModeDefault} {
		rules := []permission.Rule{
			{Value: permission.ParseRule("Edit(~/**)"), Behavior: permission.Allow, Source: permission.SourceUser},
			{Value: permission.ParseRule("Bash"), Behavior: permission.Allow, Source: permission.SourceUser},
		}
		pc, err := permission.New(permission.Config{Cwd: proj, Home: home, Mode: mode, Rules: rules, AdditionalDirs: []permission.WorkingDir{{Path: home, Source: permission.SourceUser}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range homeRunsCode {
			p := filepath.Join(home, rel)
			tilde := "~/" + rel
			calls := []struct {
				how string
				t   tool.Tool
				in  any
			}{
				{"Write", write, files.WriteInput{FilePath: p, Content: "x"}},
				{"Edit", edit, files.EditInput{FilePath: p, OldString: "Host", NewString: "Host evil"}},
				{"NotebookEdit", notebook, files.NotebookEditInput{NotebookPath: p, NewSource: "x"}},
				{"Bash >>", bt, bash.Input{Command: "echo ssh-ed25519 AAAA >> " + tilde}},
				{"Bash tee", bt, bash.Input{Command: "echo x | tee -a " + tilde}},
				{"Bash cp", bt, bash.Input{Command: "cp /etc/hostname " + tilde}},
			}
			for _, c := range calls {
				d, err := (&permission.Engine{}).Decide(ctx, pc, c.t, input(t, c.t, c.in))
				if err != nil {
					t.Fatal(err)
				}
				if d.Behavior != permission.Ask || d.Reason == nil || d.Reason.Type != permission.ReasonSafetyCheck {
					t.Errorf("%s, %s of ~/%s: %s (%v); want a safety ask", mode, c.how, rel, d.Behavior, d.Reason)
				} else if !strings.Contains(d.Reason.Detail, "home folder") && !strings.Contains(d.Reason.Detail, "protected") {
					t.Errorf("%s, %s of ~/%s: the reason does not say why: %s", mode, c.how, rel, d.Reason.Detail)
				}
			}
		}
	}
	// What is not one of them is not asked about: the rule allows it.
	pc, _ := permission.New(permission.Config{Cwd: proj, Home: home, Mode: permission.ModeBypass})
	// A hard link in the project to ~/.ssh/authorized_keys is the same file.
	keys := filepath.Join(home, ".ssh", "authorized_keys")
	if err := os.WriteFile(keys, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(keys, filepath.Join(proj, "keys.txt")); err != nil {
		t.Fatal(err)
	}
	if d, _ := (&permission.Engine{}).Decide(ctx, pc, write, input(t, write, files.WriteInput{FilePath: filepath.Join(proj, "keys.txt"), Content: "x"})); d.Behavior != permission.Ask {
		t.Errorf("bypass, Write of a hard link to ~/.ssh/authorized_keys: %s (%v); want a safety ask", d.Behavior, d.Reason)
	}
	for _, rel := range []string{"notes.txt", ".ssh_backup.txt", "src/bin/tool.go", ".local/share/notes.md", "projects/app/.local/bin.txt"} {
		d, _ := (&permission.Engine{}).Decide(ctx, pc, write, input(t, write, files.WriteInput{FilePath: filepath.Join(home, rel), Content: "x"}))
		if d.Behavior != permission.Allow {
			t.Errorf("bypass, Write of ~/%s: %s (%v); want allow", rel, d.Behavior, d.Reason)
		}
	}
}
