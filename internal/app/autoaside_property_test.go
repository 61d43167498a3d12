package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tools/bash"
	"pgregory.net/rapid"
)

// recordingClassifier blocks every call and counts the calls it was asked about.
type recordingClassifier struct{ calls atomic.Int32 }

func (c *recordingClassifier) Classify(context.Context, permission.ClassifyRequest) (permission.Verdict, error) {
	c.calls.Add(1)
	return permission.Verdict{Block: true, Reason: "recorded"}, nil
}

// interpreterCalls are interpreters under the names and paths a rule may use, with a command
// that runs inline code.
var interpreterCalls = []struct{ name, code string }{
	{"python3", "-c 1"}, {"python", "-c 1"}, {"python3.12", "-c 1"}, {"/usr/bin/python3", "-c 1"},
	{"node", "-e 1"}, {"nodejs", "-e 1"}, {"ruby", "-e 1"}, {"perl", "-e 1"}, {"bash", "x.sh"}, {"sh", "x.sh"}, {"zsh", "x.zsh"},
}

// wrapperPrefixes run the command after them.
var wrapperPrefixes = []string{"", "timeout 5 ", "env ", "nice ", "nice -n 5 ", "timeout 5 nice ", "env nice "}

// modeEntries are the ways a session reaches auto mode.
var modeEntries = []string{"flag", "defaultMode", "shift+tab", "set_permission_mode", "resume", "plan from auto"}

// ruleSources are where the allow rule comes from.
var ruleSources = []string{"user", "project", "local", "--settings", "managed", "--allowedTools", "session", "command", "skill"}

// TestAutoModeRulesNeverSkipTheClassifier: however a session reaches auto mode and wherever an
// allow rule for an interpreter (under any name or path, behind wrappers) or for a wrapper
// comes from, the rule does not decide a call it covers in auto mode: the classifier does (a
// recording fake that blocks). The same rule allows the call in default mode, so the property
// is about rules that do allow.
func TestAutoModeRulesNeverSkipTheClassifier(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	shell := bash.New(bash.Options{})
	bt := shell.BashTool()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		base := filepath.Join(root, fmt.Sprint(n))
		defer os.RemoveAll(base)
		home, proj, managed := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "managed")
		for _, d := range []string{filepath.Join(home, ".reins"), filepath.Join(proj, ".claude"), managed} {
			mustMkdir(rt, d)
		}
		in := interpreterCalls[rapid.IntRange(0, len(interpreterCalls)-1).Draw(rt, "interpreter")]
		wrap := rapid.SampledFrom(wrapperPrefixes).Draw(rt, "wrapper")
		command := wrap + in.name + " " + in.code
		var rule string
		switch kind := rapid.SampledFrom([]string{"interpreter", "wrapper", "tool-wide"}).Draw(rt, "rule kind"); {
		case kind == "wrapper" && wrap != "":
			rule = "Bash(" + strings.Fields(wrap)[0] + ":*)"
		case kind == "tool-wide":
			rule = "Bash"
		default:
			rule = "Bash(" + wrap + in.name + rapid.SampledFrom([]string{":*", " *"}).Draw(rt, "form") + ")"
		}
		source := rapid.SampledFrom(ruleSources).Draw(rt, "source")
		entry := rapid.SampledFrom(modeEntries).Draw(rt, "mode entry")

		pc := autoSession(rt, ctx, base, rule, source, "")
		if d, err := (&permission.Engine{}).Decide(ctx, pc, bt, decodeBash(rt, bt, command)); err != nil || d.Behavior != permission.Allow {
			rt.Fatalf("in default mode %s from %s does not allow %q: %v %v", rule, source, command, d.Behavior, err)
		}
		pc = autoSession(rt, ctx, base, rule, source, entry)
		if pc.Mode() != permission.ModeAuto && !(pc.Mode() == permission.ModePlan && pc.PrePlanMode() == permission.ModeAuto) {
			rt.Fatalf("%s did not reach auto mode: %s", entry, pc.Mode())
		}
		cl := &recordingClassifier{}
		d, err := (&permission.Engine{Classifier: cl}).Decide(ctx, pc, bt, decodeBash(rt, bt, command))
		if err != nil {
			rt.Fatal(err)
		}
		if cl.calls.Load() != 1 || d.Behavior != permission.Deny || d.Reason == nil || d.Reason.Type != permission.ReasonClassifier {
			rt.Fatalf("in auto mode (%s) %s from %s decided %q: %v %v, classifier asked %d times", entry, rule, source, command, d.Behavior, d.Reason, cl.calls.Load())
		}
	})
}

// autoSession builds the session's permissions with rule in source, from real settings files,
// and brings it into auto mode by entry ("" stays in default mode).
func autoSession(rt *rapid.T, ctx context.Context, base, rule, source, entry string) *permission.Context {
	home, proj, managed := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "managed")
	allow := func(mode string) string {
		doc := map[string]any{"allow": []string{rule}}
		if mode != "" {
			doc["defaultMode"] = mode
		}
		b, _ := json.Marshal(map[string]any{"permissions": doc})
		return string(b)
	}
	files := map[string]string{
		filepath.Join(home, ".reins", "settings.json"):        `{}`,
		filepath.Join(proj, ".claude", "settings.json"):       `{}`,
		filepath.Join(proj, ".claude", "settings.local.json"): `{}`,
		filepath.Join(managed, "managed-settings.json"):       `{}`,
		filepath.Join(base, "flag-settings.json"):             `{}`,
	}
	target := map[string]string{"user": filepath.Join(home, ".reins", "settings.json"), "project": filepath.Join(proj, ".claude", "settings.json"),
		"local": filepath.Join(proj, ".claude", "settings.local.json"), "managed": filepath.Join(managed, "managed-settings.json"),
		"--settings": filepath.Join(base, "flag-settings.json")}
	if p, ok := target[source]; ok {
		files[p] = allow("")
	}
	if entry == "defaultMode" {
		// The mode comes from the user file; the rule may be in it too.
		p := filepath.Join(home, ".reins", "settings.json")
		doc := `{"permissions": {"defaultMode": "auto"}}`
		if source == "user" {
			doc = allow("auto")
		}
		files[p] = doc
	}
	for p, doc := range files {
		writeFile(rt, p, doc)
	}
	if err := settings.Trust(filepath.Join(home, ".reins"), "", proj); err != nil {
		rt.Fatal(err)
	}
	flags := settings.Flags{}
	if source == "--allowedTools" {
		flags.AllowedTools = []string{rule}
	}
	startAuto := entry != "" && entry != "defaultMode"
	if startAuto {
		flags.Mode = string(permission.ModeAuto)
	}
	env := map[string]string{"HOME": home, "REINS_MANAGED_DIR": managed}
	s, err := LoadSettings(SettingsOptions{Cwd: proj, Getenv: func(k string) string { return env[k] }, File: filepath.Join(base, "flag-settings.json"), Flags: flags})
	if err != nil {
		rt.Fatal(err)
	}
	pc := s.Context
	session := []agent.SessionRule(nil)
	if source == "session" {
		session = []agent.SessionRule{{Behavior: permission.Allow, Rule: rule}}
	}
	if entry == "resume" {
		// The saved session was in auto mode; its session rules come back with it.
		if pc, err = (agent.SessionState{Mode: permission.ModeAuto, Rules: session}).Restore(pc, false); err != nil {
			rt.Fatal(err)
		}
		session = nil
	}
	perms := agent.NewPermissions(pc, nil)
	update := func(u permission.Update) {
		if err := perms.Update(ctx, u); err != nil {
			rt.Fatal(err)
		}
	}
	setMode := func(m permission.Mode) {
		update(permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: m})
	}
	switch entry {
	case "shift+tab":
		// Around the cycle from auto, back into it.
		for i := 0; i < 8; i++ {
			c := perms.Context()
			setMode(permission.NextMode(c.Mode(), c.BypassAvailable(), c.AutoAvailable()))
			if perms.Context().Mode() == permission.ModeAuto && i > 0 {
				break
			}
		}
	case "set_permission_mode":
		setMode(permission.ModeDefault)
		setMode(permission.ModeAuto)
	case "plan from auto":
		setMode(permission.ModePlan)
	}
	for _, r := range session {
		update(permission.Update{Type: permission.AddRules, Destination: permission.SourceSession, Behavior: r.Behavior, Rules: []permission.RuleValue{permission.ParseRule(r.Rule)}})
	}
	cmdRule := []permission.Rule{{Value: permission.ParseRule(rule), Behavior: permission.Allow, Source: permission.SourceCommand, Origin: permission.Origin{File: "skill.md", Line: 3, Col: 16}}}
	switch source {
	case "command":
		if _, err := perms.BeginCommand(cmdRule); err != nil {
			rt.Fatal(err)
		}
	case "skill":
		if err := perms.AddTurnRules(cmdRule); err != nil {
			rt.Fatal(err)
		}
	}
	return perms.Context()
}

func decodeBash(rt *rapid.T, bt interface {
	Decode(json.RawMessage) (any, error)
}, command string) any {
	b, _ := json.Marshal(map[string]string{"command": command})
	in, err := bt.Decode(b)
	if err != nil {
		rt.Fatal(err)
	}
	return in
}
