package permission

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// sendTool is a Checker whose calls send data to a fixed place.
type sendTool struct {
	fakeTool
	egress Egress
	pin    bool // PinMatches answers false
}

func (s sendTool) Egress(context.Context, *Context, any) Egress { return s.egress }

type pinnedSendTool struct{ sendTool }

func (p pinnedSendTool) PinMatches(*Rule) (bool, string) { return !p.pin, "description changed" }

func TestSecretFileTable(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(t.TempDir(), "proj")
	other := t.TempDir()
	pc := mustNew(t, Config{Cwd: cwd, Home: home,
		SecretFiles: []SecretFile{{Pattern: "config/master.key.enc"}, {Pattern: "/deploy/token.txt", Root: cwd}, {Pattern: "vault-*"}}})
	secret := []string{
		".env", "sub/dir/.env", ".env.local", ".env.production", ".envrc", filepath.Join(other, ".env"),
		"server.pem", "tls/server.key", "cert.p12", "store.pfx", "app.jks", "release.keystore",
		"~/.ssh/id_rsa", "~/.ssh/id_ed25519", filepath.Join(other, "id_ecdsa"), "id_dsa",
		".npmrc", "~/.netrc", "_netrc", "~/.pypirc", "~/.git-credentials", "~/.pgpass", ".htpasswd",
		"~/.aws/credentials", "~/.config/gcloud/application_default_credentials.json", "~/.config/gcloud/configurations/config_default",
		"~/.azure/msal_token_cache.json", "~/.kube/config", "~/.docker/config.json", "~/.gnupg/private-keys-v1.d/x.key",
		"SERVER.PEM", ".ENV",
		// From settings: relative to the project, anchored to the file's root, unanchored.
		"config/master.key.enc", "deploy/token.txt", "vault-prod", filepath.Join(other, "vault-x"),
	}
	for _, p := range secret {
		if _, ok := pc.SecretFile(context.Background(), p); !ok {
			t.Errorf("%s: not a secret file", p)
		}
	}
	plain := []string{
		"main.go", "README.md", "environment.go", "src/env.go", "keys.go", "pem.go", "docs/environment/x",
		"~/.aws/config", "~/.kube/cache/x", "~/.docker/daemon.json", "~/.config/other/x", "id.txt",
		"other/config/master.key.enc.bak", "/deploy/token.txt",
	}
	for _, p := range plain {
		if s, ok := pc.SecretFile(context.Background(), p); ok {
			t.Errorf("%s: a secret file (%s)", p, s.Pattern)
		}
	}
}

func TestValidateSecretFile(t *testing.T) {
	for _, bad := range []string{"", "  ", "a\x00b", "x**y", "src/**x", "cmd:*"} {
		if err := ValidateSecretFile(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	for _, good := range []string{".secrets", "~/.vault-token", "/config/*.enc", "//etc/app/key", "**/creds/**", "a(b)"} {
		if err := ValidateSecretFile(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

func TestTaintStep(t *testing.T) {
	envRead := SecretRead{Path: "/p/.env", Pattern: ".env*", Tool: "Read", CallID: "toolu_1"}
	web := sendTool{fakeTool: fakeTool{name: "WebFetch", decision: pass}, egress: Egress{Hosts: []string{"api.example.com"}}}
	curl := sendTool{fakeTool: fakeTool{name: "Bash", decision: toolAllow}, egress: Egress{Hosts: []string{"127.0.0.1"}}}
	unseen := sendTool{fakeTool: fakeTool{name: "Bash", decision: toolAllow}, egress: Egress{Unseen: "python runs code the analysis cannot see"}}
	twoHosts := sendTool{fakeTool: fakeTool{name: "Bash", decision: toolAllow}, egress: Egress{Hosts: []string{"a.example", "b.example"}}}
	mcp := pinnedSendTool{sendTool{fakeTool: fakeTool{name: "mcp__srv__post", decision: pass}, egress: Egress{Server: "srv"}}}
	mcpPinChanged := mcp
	mcpPinChanged.pin = true
	local := fakeTool{name: "Edit", decision: toolAllow}
	tests := []struct {
		name    string
		mode    Mode
		tainted bool
		rules   []Rule
		tool    Checker
		want    Behavior
		reason  ReasonType
	}{
		{"clean session: WebFetch in bypass", ModeBypass, false, nil, web, Allow, ReasonMode},
		{"clean session: Bash allowed by its check", ModeDefault, false, nil, curl, Allow, ""},
		{"clean session: unseen Bash in bypass", ModeBypass, false, nil, unseen, Allow, ReasonMode},
		{"clean session: MCP in bypass", ModeBypass, false, nil, mcp, Allow, ReasonMode},
		{"tainted: WebFetch in bypass asks", ModeBypass, true, nil, web, Ask, ReasonSafetyCheck},
		{"tainted: Bash allowed by its check asks", ModeDefault, true, nil, curl, Ask, ReasonSafetyCheck},
		{"tainted: Bash in bypass asks", ModeBypass, true, nil, curl, Ask, ReasonSafetyCheck},
		{"tainted: Bash in acceptEdits asks", ModeAcceptEdits, true, nil, curl, Ask, ReasonSafetyCheck},
		{"tainted: unseen Bash in bypass asks", ModeBypass, true, nil, unseen, Ask, ReasonSafetyCheck},
		{"tainted: MCP open-world in bypass asks", ModeBypass, true, nil, mcp, Ask, ReasonSafetyCheck},
		{"tainted: dontAsk denies", ModeDontAsk, true, nil, curl, Deny, ReasonMode},
		{"tainted: a local tool is not affected", ModeBypass, true, nil, local, Allow, ReasonMode},
		{"tainted: tool-wide allow does not name the host", ModeDefault, true, rules(Allow, SourceUser, "WebFetch", "Bash"), web, Ask, ReasonSafetyCheck},
		{"tainted: a wildcard domain does not name the host", ModeBypass, true, rules(Allow, SourceUser, "WebFetch(domain:*.example.com)"), web, Ask, ReasonSafetyCheck},
		{"tainted: another host's rule does not name it", ModeBypass, true, rules(Allow, SourceUser, "WebFetch(domain:example.com)"), web, Ask, ReasonSafetyCheck},
		{"tainted: a rule naming the host lets WebFetch through", ModeBypass, true, rules(Allow, SourceUser, "WebFetch(domain:API.example.com)"), web, Allow, ReasonMode},
		{"tainted: a rule naming the host lets curl through", ModeBypass, true, rules(Allow, SourceSession, "WebFetch(domain:127.0.0.1)"), curl, Allow, ReasonMode},
		{"tainted: a named host still needs the pipeline's allow", ModeDefault, true, rules(Allow, SourceUser, "WebFetch(domain:api.example.com)"), web, Ask, ""},
		{"tainted: one of two hosts named asks", ModeBypass, true, rules(Allow, SourceUser, "WebFetch(domain:a.example)"), twoHosts, Ask, ReasonSafetyCheck},
		{"tainted: both hosts named", ModeBypass, true, rules(Allow, SourceUser, "WebFetch(domain:a.example)", "WebFetch(domain:b.example)"), twoHosts, Allow, ReasonMode},
		{"tainted: no rule names an unseen place", ModeBypass, true, rules(Allow, SourceUser, "WebFetch(domain:*)", "Bash"), unseen, Ask, ReasonSafetyCheck},
		{"tainted: a server rule names the MCP server", ModeBypass, true, rules(Allow, SourceUser, "mcp__srv"), mcp, Allow, ReasonMode},
		{"tainted: the exact tool names the MCP server", ModeDefault, true, rules(Allow, SourceUser, "mcp__srv__post"), mcp, Allow, ReasonRule},
		{"tainted: a glob does not name the MCP server", ModeBypass, true, rules(Allow, SourceUser, "mcp__*"), mcp, Ask, ReasonSafetyCheck},
		{"tainted: a changed pin does not name the server", ModeBypass, true, rules(Allow, SourceUser, "mcp__srv"), mcpPinChanged, Ask, ReasonSafetyCheck},
		{"tainted: a deny rule still denies first", ModeBypass, true, rules(Deny, SourceUser, "WebFetch"), web, Deny, ReasonRule},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pc := mustNew(t, Config{Mode: tc.mode, Rules: tc.rules})
			if tc.tainted {
				pc.Taint().Record(envRead)
			}
			var tr Trace
			d, err := (&Engine{}).Decide(WithTrace(context.Background(), &tr), pc, tc.tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tc.want || (tc.reason != "" && (d.Reason == nil || d.Reason.Type != tc.reason)) {
				t.Fatalf("got %s (%s), want %s (%s)\n%v", d.Behavior, d.Reason, tc.want, tc.reason, tr.Steps())
			}
			if d.Behavior == Ask && d.Reason != nil && d.Reason.Type == ReasonSafetyCheck {
				if d.Reason.ClassifierApprovable {
					t.Error("a taint ask is classifier-approvable")
				}
				if !strings.Contains(d.Message, "/p/.env") || !strings.Contains(d.Reason.Detail, "toolu_1") {
					t.Errorf("the ask does not name the read: %q / %q", d.Message, d.Reason.Detail)
				}
				if !traceHas(&tr, "1h taint", "ask") {
					t.Errorf("no 1h taint line in %v", tr.Steps())
				}
			}
		})
	}
}

func traceHas(tr *Trace, step, outcome string) bool {
	for _, s := range tr.Steps() {
		if s.Name == step && s.Outcome == outcome {
			return true
		}
	}
	return false
}

// countingClassifier allows everything and counts how often it was asked.
type countingClassifier struct{ n int }

func (c *countingClassifier) Classify(context.Context, ClassifyRequest) (Verdict, error) {
	c.n++
	return Verdict{}, nil
}

func TestTaintSurvivesHooksAutoAndHeadless(t *testing.T) {
	web := sendTool{fakeTool: fakeTool{name: "WebFetch", decision: pass}, egress: Egress{Hosts: []string{"x.example"}}}
	ctx := context.Background()

	pc := mustNew(t, Config{Mode: ModeBypass})
	pc.Taint().Record(SecretRead{Path: "/p/.env", Pattern: ".env*", Tool: "Read"})
	d, err := (&Engine{}).AuthorizeCall(ctx, pc, Call{Tool: web, Hook: &HookVerdict{Behavior: Allow, Hooks: "h"}})
	if err != nil || d.Behavior != Deny || !strings.Contains(d.Message, ".env") {
		t.Errorf("a hook's allow, headless: got %s %q %v; want a deny naming .env", d.Behavior, d.Message, err)
	}

	cl := &countingClassifier{}
	auto := mustNew(t, Config{Mode: ModeAuto, Taint: pc.Taint()})
	d, err = (&Engine{Classifier: cl}).Decide(ctx, auto, web, nil)
	if err != nil || d.Behavior != Ask || cl.n != 0 {
		t.Errorf("auto mode: got %s, classifier asked %d times; want ask without the classifier", d.Behavior, cl.n)
	}

	bg := mustNew(t, Config{Mode: ModeBypass, AvoidPrompts: true, Taint: pc.Taint()})
	if d, _ := (&Engine{}).Decide(ctx, bg, web, nil); d.Behavior != Deny {
		t.Errorf("a context no one can answer: got %s, want deny", d.Behavior)
	}
}

func TestTaintSharedByDerivedContexts(t *testing.T) {
	pc := mustNew(t, Config{Mode: ModeDefault, BypassAvailable: true})
	derived := []*Context{pc.WithCwd(t.TempDir()), pc.WithAvoidPrompts(true), pc.WithMode(ModeBubble)}
	if b, err := pc.Transition(ModeBypass); err == nil {
		derived = append(derived, b)
	}
	if a, err := pc.Apply(Update{Type: AddRules, Destination: SourceSession, Behavior: Allow, Rules: []RuleValue{{Tool: "Read"}}}); err == nil {
		derived = append(derived, a)
	}
	derived[0].Taint().Record(SecretRead{Path: "/x/.env", Pattern: ".env*", Tool: "Read"})
	for i, d := range append(derived, pc) {
		if !d.Taint().Tainted() {
			t.Errorf("context %d does not see the read", i)
		}
	}
	fresh := pc.WithTaint(NewTaint())
	if fresh.Taint().Tainted() || !pc.Taint().Tainted() {
		t.Error("WithTaint does not start a new record")
	}
	pc.Taint().Clear()
	for i, d := range derived {
		if d.Taint().Tainted() {
			t.Errorf("context %d still tainted after Clear", i)
		}
	}
}

// TestPropertyTaintedNeverAllowsUnnamedEgress: whatever the mode, rules, hooks and the tool's
// own answer, a tainted session never allows a call that can send data to a destination no
// allow rule names.
func TestPropertyTaintedNeverAllowsUnnamedEgress(t *testing.T) {
	hosts := []string{"a.example", "b.example", "127.0.0.1"}
	ruleValues := []string{"WebFetch", "WebFetch(domain:a.example)", "WebFetch(domain:*.example)", "WebFetch(domain:127.0.0.1)",
		"Bash", "Bash(curl:*)", "mcp__srv", "mcp__srv__post", "mcp__*", "X"}
	decisions := []Decision{pass, toolAllow, toolDeny, plainAsk, safetyAsk, askRuleAsk}
	modes := []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass, ModeAuto}
	rapid.Check(t, func(t *rapid.T) {
		var eg Egress
		for _, h := range hosts {
			if rapid.Bool().Draw(t, "host "+h) {
				eg.Hosts = append(eg.Hosts, h)
			}
		}
		if rapid.Bool().Draw(t, "server") {
			eg.Server = "srv"
		}
		if rapid.Bool().Draw(t, "unseen") {
			eg.Unseen = "cannot see"
		}
		name := rapid.SampledFrom([]string{"WebFetch", "Bash", "mcp__srv__post", "X"}).Draw(t, "tool")
		tl := sendTool{fakeTool: fakeTool{name: name, decision: rapid.SampledFrom(decisions).Draw(t, "decision")}, egress: eg}
		var rs []Rule
		for i := range rapid.IntRange(0, 5).Draw(t, "nrules") {
			rs = append(rs, Rule{Value: ParseRule(rapid.SampledFrom(ruleValues).Draw(t, "rule")),
				Behavior: rapid.SampledFrom([]Behavior{Allow, Ask, Deny}).Draw(t, "behavior"),
				Source:   rapid.SampledFrom(Sources).Draw(t, "source"+string(rune('a'+i)))})
		}
		pc, err := New(Config{Cwd: hostAbs("/proj"), Mode: rapid.SampledFrom(modes).Draw(t, "mode"), BypassAvailable: rapid.Bool().Draw(t, "bypassOK"), Rules: rs})
		if err != nil {
			t.Fatal(err)
		}
		tainted := rapid.Bool().Draw(t, "tainted")
		if tainted {
			pc.Taint().Record(SecretRead{Path: hostAbs("/proj/.env"), Pattern: ".env*", Tool: "Read"})
		}
		call := Call{Tool: tl}
		if h := rapid.SampledFrom([]Behavior{Passthrough, Allow, Ask, Deny}).Draw(t, "hook"); h != Passthrough {
			call.Hook = &HookVerdict{Behavior: h}
		}
		d, err := (&Engine{Classifier: &countingClassifier{}}).AuthorizeCall(context.Background(), pc, call)
		if err != nil || d.Behavior != Allow || !tainted || !eg.Sends() {
			return
		}
		allowed := func(v string) bool {
			for _, r := range rs {
				if r.Behavior == Allow && r.Value.String() == v {
					return true
				}
			}
			return false
		}
		if eg.Unseen != "" {
			t.Fatalf("a tainted session allowed %s sending somewhere unseen (%s)", name, d.Reason)
		}
		for _, h := range eg.Hosts {
			if !allowed("WebFetch(domain:" + h + ")") {
				t.Fatalf("a tainted session allowed %s sending to %s (%s)", name, h, d.Reason)
			}
		}
		if eg.Server != "" && !allowed("mcp__srv") && !(name == "mcp__srv__post" && allowed(name)) {
			t.Fatalf("a tainted session allowed %s sending to the server srv (%s)", name, d.Reason)
		}
	})
}
