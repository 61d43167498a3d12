package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fenceTool is a Read or Edit tool whose check is the shared read or write check of its
// input path.
type fenceTool struct{ name string }

func (p fenceTool) Name() string { return p.name }
func (p fenceTool) CheckPermissions(ctx context.Context, pc *Context, input any) Decision {
	if p.name == "Read" {
		return pc.CheckRead(ctx, input.(string))
	}
	return pc.CheckWrite(ctx, input.(string))
}

// countingAsker answers allow and counts how often it was asked.
type countingAsker struct{ n int }

func (a *countingAsker) Ask(context.Context, AskRequest) (Decision, error) {
	a.n++
	return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonOther, Detail: "person"}}, nil
}

// TestFences is Claude Code's new permission settings as rows through the engine:
// blockReadsOutsideWorkingDirectories and blockWritesOutsideWorkingDirectories deny, where the
// check would ask, a read or write outside the working directories that no rule allows, in
// every mode; denyInsteadOfPrompting denies whatever would reach a person, and the asker is
// never asked.
func TestFences(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	proj, other, home := filepath.Join(root, "proj"), filepath.Join(root, "other"), filepath.Join(root, "home")
	for _, d := range []string{proj, other, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inside, outside := filepath.Join(proj, "a.txt"), filepath.Join(other, "b.txt")
	reads := Fences{BlockReadsOutside: "/etc/reins/managed-settings.json:3:5"}
	writes := Fences{BlockWritesOutside: "/p/.claude/settings.json:2:3"}
	prompts := Fences{DenyInsteadOfPrompting: "/home/me/.claude/settings.json:4:9"}
	read, edit := fenceTool{"Read"}, fenceTool{"Edit"}
	tests := []struct {
		name    string
		fences  Fences
		mode    Mode
		rules   []Rule
		tool    Checker
		input   any
		want    Behavior
		setting string
	}{
		{"read inside, fence on", reads, ModeDefault, nil, read, inside, Allow, ""},
		{"read outside, no fence asks", Fences{}, ModeDefault, nil, read, outside, Ask, ""},
		{"read outside, fence denies", reads, ModeDefault, nil, read, outside, Deny, SettingBlockReads},
		{"read outside, fence denies in bypass", reads, ModeBypass, nil, read, outside, Deny, SettingBlockReads},
		{"read outside, fence denies in acceptEdits", reads, ModeAcceptEdits, nil, read, outside, Deny, SettingBlockReads},
		{"read outside, a Read allow rule is the exception", reads, ModeDefault, rules(Allow, SourceUser, "Read("+rulePath(other)+"/**)"), read, outside, Allow, ""},
		{"read outside, a Read ask rule still asks", reads, ModeDefault, rules(Ask, SourceUser, "Read("+rulePath(other)+"/**)"), read, outside, Ask, ""},
		{"the write fence does not fence reads", writes, ModeDefault, nil, read, outside, Ask, ""},
		{"write inside, fence on, acceptEdits", writes, ModeAcceptEdits, nil, edit, inside, Allow, ""},
		{"write inside, fence on, default asks", writes, ModeDefault, nil, edit, inside, Ask, ""},
		{"write outside, no fence asks", Fences{}, ModeDefault, nil, edit, outside, Ask, ""},
		{"write outside, fence denies", writes, ModeDefault, nil, edit, outside, Deny, SettingBlockWrites},
		{"write outside, fence denies in bypass", writes, ModeBypass, nil, edit, outside, Deny, SettingBlockWrites},
		{"write outside protected, fence denies", writes, ModeBypass, nil, edit, filepath.Join(home, ".bashrc"), Deny, SettingBlockWrites},
		{"write outside, an Edit allow rule is the exception", writes, ModeDefault, rules(Allow, SourceUser, "Edit("+rulePath(other)+"/**)"), edit, outside, Allow, ""},
		{"write outside, an Edit deny rule still names the rule", writes, ModeDefault, rules(Deny, SourceUser, "Edit("+rulePath(other)+"/**)"), edit, outside, Deny, ""},
		{"the read fence does not fence writes", reads, ModeDefault, nil, edit, outside, Ask, ""},
		{"denyInsteadOfPrompting: a plain ask", prompts, ModeDefault, nil, fakeTool{name: "X", decision: plainAsk}, nil, Deny, SettingDenyPrompting},
		{"denyInsteadOfPrompting: passthrough", prompts, ModeDefault, nil, fakeTool{name: "X", decision: pass}, nil, Deny, SettingDenyPrompting},
		{"denyInsteadOfPrompting: a safety check", prompts, ModeBypass, nil, fakeTool{name: "X", decision: safetyAsk}, nil, Deny, SettingDenyPrompting},
		{"denyInsteadOfPrompting: an ask rule", prompts, ModeBypass, nil, fakeTool{name: "X", decision: askRuleAsk}, nil, Deny, SettingDenyPrompting},
		{"denyInsteadOfPrompting: a tool-wide ask rule", prompts, ModeDefault, rules(Ask, SourceProject, "X"), fakeTool{name: "X", decision: toolAllow}, nil, Deny, SettingDenyPrompting},
		{"denyInsteadOfPrompting: a tool that asks a person", prompts, ModeDefault, nil, fakeTool{name: "X", decision: plainAsk, interact: true}, nil, Deny, SettingDenyPrompting},
		{"denyInsteadOfPrompting: auto's kept safety ask", prompts, ModeAuto, nil, fakeTool{name: "Edit", decision: safetyAsk}, nil, Deny, SettingDenyPrompting},
		{"denyInsteadOfPrompting keeps allow rules", prompts, ModeDefault, rules(Allow, SourceUser, "X"), fakeTool{name: "X", decision: pass}, nil, Allow, ""},
		{"denyInsteadOfPrompting keeps bypass", prompts, ModeBypass, nil, fakeTool{name: "X", decision: plainAsk}, nil, Allow, ""},
		{"denyInsteadOfPrompting keeps acceptEdits inside", prompts, ModeAcceptEdits, nil, edit, inside, Allow, ""},
		{"denyInsteadOfPrompting: a write outside", prompts, ModeAcceptEdits, nil, edit, outside, Deny, SettingDenyPrompting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc := mustNew(t, Config{Cwd: proj, Home: home, Mode: tt.mode, BypassAvailable: tt.mode == ModeBypass, Rules: tt.rules, Fences: tt.fences})
			var e Engine
			asker := &countingAsker{}
			d, err := e.AuthorizeCall(context.Background(), pc, Call{Tool: tt.tool, Input: tt.input, Asker: asker})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == Ask {
				// With an asker the ask is answered: it reached a person.
				want = Allow
				if asker.n != 1 {
					t.Errorf("the asker was asked %d times, want once", asker.n)
				}
			}
			if d.Behavior != want {
				t.Fatalf("behavior %s, want %s (%+v, %v)", d.Behavior, want, d, d.Reason)
			}
			if tt.setting != "" {
				if asker.n != 0 {
					t.Errorf("a fenced call reached the asker")
				}
				if d.Reason == nil || !strings.HasPrefix(d.Reason.Setting, tt.setting) || !strings.Contains(d.Message, tt.setting) {
					t.Errorf("the denial does not name %s: %q %+v", tt.setting, d.Message, d.Reason)
				}
				if !strings.Contains(d.Reason.Setting, ":") {
					t.Errorf("the denial does not say where the setting was set: %q", d.Reason.Setting)
				}
			}
		})
	}
}

// A PreToolUse hook's ask and the ask of a hook-allowed call that a rule asks about are
// denied under denyInsteadOfPrompting; a sub-agent's derived context keeps every fence.
func TestFencesHooksAndDerivedContexts(t *testing.T) {
	pc := mustNew(t, Config{Fences: Fences{DenyInsteadOfPrompting: "x:1:1", BlockWritesOutside: "y:1:1"}, Rules: rules(Ask, SourceUser, "X")})
	var e Engine
	asker := &countingAsker{}
	for _, hv := range []HookVerdict{{Behavior: Ask, Reason: "hook wants a person"}, {Behavior: Allow}} {
		d, err := e.AuthorizeCall(context.Background(), pc, Call{Tool: fakeTool{name: "X", decision: pass}, Hook: &hv, Asker: asker})
		if err != nil || d.Behavior != Deny || d.Reason == nil || d.Reason.Setting == "" {
			t.Errorf("hook %s: %+v %v", hv.Behavior, d, err)
		}
	}
	if asker.n != 0 {
		t.Errorf("the asker was asked %d times", asker.n)
	}
	for _, sub := range []*Context{pc.WithAvoidPrompts(true), pc.WithMode(ModeAcceptEdits), pc.WithCwd("/tmp")} {
		if sub.Fences() != pc.Fences() {
			t.Errorf("a derived context lost the fences: %+v", sub.Fences())
		}
	}
}

// A protected path of the context (a worktree's main .git/hooks) asks in every mode, as the
// protected names do, from outside and inside the working directories.
func TestExtraProtectedPaths(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "main")
	wt := filepath.Join(main, ".claude", "worktrees", "feat")
	hooksDir := filepath.Join(root, "gitdir", "hooks")
	pc := mustNew(t, Config{Cwd: wt, Mode: ModeBypass, BypassAvailable: true, ProtectedPaths: []string{hooksDir, filepath.Join(root, "gitdir", "config")},
		AdditionalDirs: []WorkingDir{{Path: filepath.Join(root, "gitdir")}}})
	for _, p := range []string{filepath.Join(hooksDir, "pre-commit"), filepath.Join(root, "gitdir", "config"), filepath.Join(root, "GITDIR", "Hooks", "x")} {
		d := pc.CheckWrite(context.Background(), p)
		if d.Behavior != Ask || d.Reason == nil || d.Reason.Type != ReasonSafetyCheck {
			t.Errorf("%s: %s %+v", p, d.Behavior, d.Reason)
		}
	}
	if d := pc.CheckWrite(context.Background(), filepath.Join(root, "gitdir", "hooksx")); d.Reason != nil && d.Reason.Type == ReasonSafetyCheck {
		t.Errorf("a sibling of a protected folder is protected: %+v", d.Reason)
	}
	if got := pc.ProtectedPaths(); len(got) != 2 {
		t.Errorf("ProtectedPaths %v", got)
	}
}
