package skilltool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/skills"
	"github.com/reinsdev/reins/tool"
)

func fixture(t *testing.T) (*skills.Set, string) {
	t.Helper()
	root := t.TempDir()
	for name, header := range map[string]string{
		"pdf":    "description: Fill PDF forms",
		"secret": "description: hidden\ndisable-model-invocation: true",
		"deploy": "description: Deploy\nallowed-tools: Bash(kubectl:*), Edit",
	} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\n"+header+"\n---\nBODY OF "+name+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "scripts", "fill.py"), []byte("print(1)"), 0o644)
	}
	set := skills.Load(context.Background(), []skills.Root{{Path: root, Source: skills.SourceProject}}, true)
	if len(set.Errors) > 0 {
		t.Fatal(set.Errors)
	}
	return set, root
}

func context_(t *testing.T, cwd string, rules ...string) *permission.Context {
	t.Helper()
	var rs []permission.Rule
	for _, r := range rules {
		b, v, _ := strings.Cut(r, " ")
		beh := map[string]permission.Behavior{"deny": permission.Deny, "ask": permission.Ask, "allow": permission.Allow}[b]
		rs = append(rs, permission.Rule{Value: permission.ParseRule(v), Behavior: beh, Source: permission.SourceProject})
	}
	pc, err := permission.New(permission.Config{Cwd: cwd, Rules: rs})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func TestPromptListsNamesAndDescriptionsOnly(t *testing.T) {
	set, _ := fixture(t)
	p, err := New(Options{Skills: set}).Prompt(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, "<name>pdf</name>\n<description>Fill PDF forms</description>") {
		t.Errorf("prompt does not list pdf:\n%s", p)
	}
	for _, leak := range []string{"BODY OF", "secret", "hidden"} {
		if strings.Contains(p, leak) {
			t.Errorf("prompt holds %q:\n%s", leak, p)
		}
	}
}

func TestDecisions(t *testing.T) {
	set, root := fixture(t)
	skillFile := filepath.Join(root, "pdf", "SKILL.md")
	tests := []struct {
		name  string
		rules []string
		skill string
		want  permission.Behavior
	}{
		{name: "no rule: allowed", skill: "pdf", want: permission.Allow},
		{name: "Skill(name) deny", rules: []string{"deny Skill(pdf)"}, skill: "pdf", want: permission.Deny},
		{name: "Skill(prefix:*) deny", rules: []string{"deny Skill(pdf:*)"}, skill: "pdf", want: permission.Deny},
		{name: "Skill(name) ask", rules: []string{"ask Skill(pdf)"}, skill: "pdf", want: permission.Ask},
		{name: "deny beats allow", rules: []string{"allow Skill(pdf)", "deny Skill(pdf)"}, skill: "pdf", want: permission.Deny},
		{name: "a Read deny of SKILL.md denies", rules: []string{"deny Read(/" + skillFile + ")"}, skill: "pdf", want: permission.Deny},
		{name: "another skill's rule does not match", rules: []string{"deny Skill(pdfx)"}, skill: "pdf", want: permission.Allow},
		{name: "an unknown skill is never allowed", skill: "nope", want: permission.Ask},
		{name: "a skill the model may not invoke is unknown", skill: "secret", want: permission.Ask},
		{name: "a skill that grants allowed-tools asks", skill: "deploy", want: permission.Ask},
		{name: "Skill(name) allow gives the grant ahead", rules: []string{"allow Skill(deploy)"}, skill: "deploy", want: permission.Allow},
		{name: "a deny of the skill still wins", rules: []string{"deny Skill(deploy)"}, skill: "deploy", want: permission.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := New(Options{Skills: set})
			in, err := tl.Decode(json.RawMessage(`{"skill":"` + tt.skill + `"}`))
			if err != nil {
				t.Fatal(err)
			}
			d := tl.CheckPermissions(context.Background(), context_(t, root, tt.rules...), in)
			if d.Behavior != tt.want {
				t.Errorf("decision %v (%s), want %v", d.Behavior, d.Message, tt.want)
			}
		})
	}
}

func TestCallReturnsTheBodyAndFilePaths(t *testing.T) {
	set, root := fixture(t)
	var loaded string
	tl := New(Options{Skills: set, OnLoad: func(_ context.Context, s *skills.Skill, _ *tool.Env) { loaded = s.Name }})
	env := &tool.Env{Files: tool.NewFileState(), Values: map[any]any{}}
	in, err := tl.Decode(json.RawMessage(`{"skill":"pdf","args":"form.pdf"}`))
	if err != nil {
		t.Fatal(err)
	}
	if f := tl.ValidateInput(context.Background(), in, env); f != nil {
		t.Fatal(f.Message)
	}
	res, err := tl.Call(context.Background(), in, env)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	text := res.Content[0].Text
	for _, want := range []string{"BODY OF pdf", "ARGUMENTS: form.pdf", "- " + filepath.Join(root, "pdf", "scripts", "fill.py")} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "print(1)") {
		t.Errorf("a file of the folder was inlined:\n%s", text)
	}
	if loaded != "pdf" {
		t.Errorf("OnLoad got %q", loaded)
	}
	bad, _ := tl.Decode(json.RawMessage(`{"skill":"secret"}`))
	if f := tl.ValidateInput(context.Background(), bad, env); f == nil || !strings.Contains(f.Message, "Unknown skill: secret") {
		t.Errorf("a disabled skill validated: %v", f)
	}
}

// TestGrantAskNamesTheRulesAndOffersTheSkill: the ask of a load that grants rules names each
// with where it is written and suggests Skill(name) for the session; a skill whose rules do not
// apply (Grants says none: an untrusted project, managed policy) loads unasked.
func TestGrantAskNamesTheRulesAndOffersTheSkill(t *testing.T) {
	set, root := fixture(t)
	tl := New(Options{Skills: set})
	in, _ := tl.Decode(json.RawMessage(`{"skill":"deploy"}`))
	d := tl.CheckPermissions(context.Background(), context_(t, root), in)
	if !strings.Contains(d.Message, "Bash(kubectl:*) ("+filepath.Join(root, "deploy", "SKILL.md")+":3:") || !strings.Contains(d.Message, "Edit") {
		t.Errorf("message %q", d.Message)
	}
	if len(d.Suggestions) != 1 || d.Suggestions[0].Rules[0] != (permission.RuleValue{Tool: "Skill", Content: "deploy"}) || d.Suggestions[0].Destination != permission.SourceSession {
		t.Errorf("suggestions %+v", d.Suggestions)
	}
	none := New(Options{Skills: set, Grants: func(*skills.Skill) []permission.Rule { return nil }})
	if d := none.CheckPermissions(context.Background(), context_(t, root), in); d.Behavior != permission.Allow {
		t.Errorf("a load that grants nothing: %v", d.Behavior)
	}
}
