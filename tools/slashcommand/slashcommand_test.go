package slashcommand

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/commands"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

func testSet(t *testing.T) *commands.Set {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"review.md":        "---\ndescription: Review a branch\nargument-hint: <branch>\n---\nreview $1\n",
		"deploy.md":        "---\ndescription: Deploy\ndisable-model-invocation: true\n---\ndeploy\n",
		"frontend/lint.md": "lint the frontend\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return commands.Load(context.Background(), []commands.Root{{Path: dir, Source: commands.SourceUser}})
}

func plainExpand(ctx context.Context, c *commands.Command, args string) (string, error) {
	return c.Expand(ctx, args, nil)
}

func TestDecisions(t *testing.T) {
	set := testSet(t)
	tl := New(set, plainExpand)
	rules := func(b permission.Behavior, rs ...string) []permission.Rule {
		var out []permission.Rule
		for _, r := range rs {
			out = append(out, permission.Rule{Value: permission.ParseRule(r), Behavior: b, Source: permission.SourceUser})
		}
		return out
	}
	tests := []struct {
		name  string
		rules []permission.Rule
		cmd   string
		want  permission.Behavior
	}{
		{"no rule asks", nil, "/review main", permission.Ask},
		{"an exact rule matches the command alone", rules(permission.Allow, "SlashCommand(/review)"), "/review", permission.Allow},
		{"an exact rule does not match with arguments", rules(permission.Allow, "SlashCommand(/review)"), "/review main", permission.Ask},
		{"a prefix rule matches any arguments", rules(permission.Allow, "SlashCommand(/review:*)"), "/review  main", permission.Allow},
		{"a prefix rule is no word prefix", rules(permission.Allow, "SlashCommand(/review:*)"), "/reviewer x", permission.Ask},
		{"deny beats allow", append(rules(permission.Allow, "SlashCommand"), rules(permission.Deny, "SlashCommand(/review:*)")...), "/review x", permission.Deny},
		{"ask beats allow", append(rules(permission.Allow, "SlashCommand(/review:*)"), rules(permission.Ask, "SlashCommand(/review:*)")...), "/review x", permission.Ask},
		{"tool-wide deny", rules(permission.Deny, "SlashCommand"), "/review", permission.Deny},
		{"tool-wide allow", rules(permission.Allow, "SlashCommand"), "/frontend:lint", permission.Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			in, err := tl.Decode(json.RawMessage(`{"command":` + mustJSON(tt.cmd) + `}`))
			if err != nil {
				t.Fatal(err)
			}
			d, err := (&permission.Engine{}).Decide(context.Background(), pc, tl, in)
			if err != nil || d.Behavior != tt.want {
				t.Errorf("decision %s (%s), %v; want %s", d.Behavior, d.Message, err, tt.want)
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestRefusals(t *testing.T) {
	tl := New(testSet(t), plainExpand)
	for cmd, want := range map[string]string{
		"/deploy":  "cannot be used with SlashCommand tool due to disable-model-invocation",
		"/missing": "Unknown slash command: missing",
		"review":   "a slash command starts with /",
	} {
		in, _ := tl.Decode(json.RawMessage(`{"command":` + mustJSON(cmd) + `}`))
		f := tl.ValidateInput(context.Background(), in, &tool.Env{})
		if f == nil || !strings.Contains(f.Message, want) {
			t.Errorf("%s: %v, want %q", cmd, f, want)
		}
	}
	p, _ := tl.Prompt(context.Background())
	if !strings.Contains(p, "/review <branch>: Review a branch") || strings.Contains(p, "/deploy") {
		t.Errorf("the prompt lists the wrong commands:\n%s", p)
	}
}

func TestCallExpands(t *testing.T) {
	tl := New(testSet(t), plainExpand)
	in, _ := tl.Decode(json.RawMessage(`{"command":"/review main"}`))
	res, err := tl.Call(context.Background(), in, &tool.Env{})
	if err != nil || res.IsError || res.TextOf() != "<command-name>/review</command-name>\nreview main\n" {
		t.Errorf("Call = %q (error %v), %v", res.TextOf(), res.IsError, err)
	}
}

func TestNoToolWithoutUsableCommands(t *testing.T) {
	if New(commands.Load(context.Background(), nil), plainExpand) != nil {
		t.Error("a SlashCommand tool without commands")
	}
}
