package skills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

func TestParseFile(t *testing.T) {
	tests := []struct {
		name, src string
		wantName  string
		wantRules []string
		wantErr   string
	}{
		{name: "name, description, body", src: "---\nname: pdf\ndescription: Fill PDF forms\n---\nUse pdftk.\n", wantName: "pdf"},
		{name: "the folder names a skill without name", src: "---\ndescription: d\n---\nbody\n", wantName: "lint"},
		{name: "allowed-tools as a string", src: "---\ndescription: d\nallowed-tools: Bash(npm run lint:*), Read\n---\nb\n", wantName: "lint",
			wantRules: []string{"Bash(npm run lint:*)@f.md:3:16", "Read@f.md:3:38"}},
		{name: "allowed-tools as a list", src: "---\ndescription: d\nallowed-tools:\n  - Grep\n  - Bash(git diff:*)\n---\nb\n", wantName: "lint",
			wantRules: []string{"Grep@f.md:4:5", "Bash(git diff:*)@f.md:5:5"}},
		{name: "Agent Skills keys are accepted", src: "---\nname: x\ndescription: d\nlicense: MIT\nmetadata:\n  owner: me\ncompatibility: any\nversion: 1.0.0\n---\nb\n", wantName: "x"},
		{name: "no front matter", src: "just text", wantErr: "f.md:1:1: missing YAML front matter"},
		{name: "no description", src: "---\nname: x\n---\nb\n", wantErr: `f.md:2:1: missing required key "description"`},
		{name: "empty description", src: "---\nname: x\ndescription: \"\"\n---\nb\n", wantErr: `f.md:3:14: "description" must not be empty`},
		{name: "long description", src: "---\ndescription: " + strings.Repeat("d", MaxDescription+1) + "\n---\nb\n", wantErr: "f.md:2:14: \"description\" is 1025 bytes"},
		{name: "bad name", src: "---\nname: My Skill\ndescription: d\n---\nb\n", wantErr: `f.md:2:7: invalid skill name "My Skill"`},
		{name: "bad rule", src: "---\ndescription: d\nallowed-tools: Read, bash(ls)\n---\nb\n", wantErr: `f.md:3:22: allowed-tools: invalid rule "bash(ls)"`},
		{name: "hooks are refused by name", src: "---\ndescription: d\nhooks: {}\n---\nb\n", wantErr: `f.md:3:8: "hooks" is not supported`},
		{name: "model is refused by name", src: "---\ndescription: d\nmodel: opus\n---\nb\n", wantErr: `f.md:3:8: "model" is not supported`},
		{name: "unknown key", src: "---\ndescription: d\nallowed_tools: Read\n---\nb\n", wantErr: `f.md:3:1: unknown key "allowed_tools" (did you mean "allowed-tools"?)`},
		{name: "empty body", src: "---\ndescription: d\n---\n\n", wantErr: "f.md:4:1: the skill's instructions"},
		{name: "flag not a bool", src: "---\ndescription: d\ndisable-model-invocation: maybe\n---\nb\n", wantErr: `f.md:3:27: "disable-model-invocation" must be true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseFile("f.md", "/x/skills/lint", []byte(tt.src))
			if tt.wantErr != "" {
				var fe *Error
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
					t.Fatalf("err = %v, want an *Error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != tt.wantName {
				t.Errorf("name = %q, want %q", s.Name, tt.wantName)
			}
			var got []string
			for _, g := range s.Grants {
				got = append(got, g.Rule+"@"+g.Origin.String())
			}
			if !slices.Equal(got, tt.wantRules) {
				t.Errorf("grants = %q, want %q", got, tt.wantRules)
			}
		})
	}
}

func writeSkill(t testing.TB, root, name, header string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\n"+header+"\n---\nInstructions of "+name+" from "+root+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadPrecedenceTrustAndPlugins(t *testing.T) {
	home, project, plug := t.TempDir(), t.TempDir(), t.TempDir()
	roots := Roots(home, filepath.Join(home, ".reins"), project)
	writeSkill(t, filepath.Join(project, ".claude", "skills"), "review", "description: project review\nallowed-tools: Bash(make:*)")
	writeSkill(t, filepath.Join(home, ".claude", "skills"), "review", "description: user review")
	writeSkill(t, filepath.Join(project, ".reins", "skills"), "lint", "description: lint it\nallowed-tools: Bash(npm run lint:*)")
	writeSkill(t, plug, "fmt", "description: format\nallowed-tools: Bash(gofmt:*)")
	writeSkill(t, filepath.Join(project, ".claude", "skills"), "broken", "name: x")
	roots = append(roots, Root{Path: plug, Source: SourcePlugin, Plugin: "tools"})

	for _, trusted := range []bool{false, true} {
		set := Load(context.Background(), roots, trusted)
		var names []string
		for _, s := range set.All() {
			names = append(names, s.Name+"/"+s.Where())
		}
		if want := []string{"lint/project", "review/user", "tools:fmt/plugin tools"}; !slices.Equal(names, want) {
			t.Fatalf("skills = %q, want %q", names, want)
		}
		if len(set.Errors) != 1 || !strings.Contains(set.Errors[0].Error(), `SKILL.md:2:1: missing required key "description"`) {
			t.Errorf("errors = %v, want the broken skill's positioned error", set.Errors)
		}
		for _, name := range []string{"lint", "tools:fmt"} {
			rules, why := set.Get(name).Rules()
			if trusted != (len(rules) == 1) || trusted == (why != "") {
				t.Errorf("trusted=%v: %s rules = %v (%q)", trusted, name, rules, why)
			}
			for _, r := range rules {
				if r.Source != permission.SourceCommand || r.Behavior != permission.Allow || r.Origin.Line != 3 {
					t.Errorf("rule %+v: want an allow of source command from line 3", r)
				}
			}
		}
	}
}

func TestLoadBoundsTheSkillsOfARoot(t *testing.T) {
	root := t.TempDir()
	for i := range MaxSkills + 5 {
		writeSkill(t, root, "s"+strings.Repeat("a", i%3)+string(rune('a'+i%26))+"-"+itoa(i), "description: d")
	}
	set := Load(context.Background(), []Root{{Path: root, Source: SourceUser}}, true)
	if n := len(set.All()); n != MaxSkills {
		t.Errorf("loaded %d skills, want %d", n, MaxSkills)
	}
	if len(set.Errors) != 1 || !strings.Contains(set.Errors[0].Error(), "more than 200 skills") {
		t.Errorf("errors = %v", set.Errors)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestFilesListsTheFolderWithoutSkillMD(t *testing.T) {
	root := t.TempDir()
	dir := writeSkill(t, root, "pdf", "description: d")
	for _, f := range []string{"forms.md", "scripts/fill.py", "a/b/c/d/deep.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := Load(context.Background(), []Root{{Path: root, Source: SourceUser}}, true)
	files, truncated, err := set.Get("pdf").Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "forms.md"), filepath.Join(dir, "scripts/fill.py")}
	if !slices.Equal(files, want) || !truncated {
		t.Errorf("files = %q (truncated %v), want %q and truncated", files, truncated, want)
	}
}

func TestHostileSkillFileIsRefused(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "big")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\ndescription: d\n---\n"+strings.Repeat("x", MaxFileSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	set := Load(context.Background(), []Root{{Path: root, Source: SourceUser}}, true)
	if len(set.All()) != 0 || len(set.Errors) != 1 || !strings.Contains(set.Errors[0].Error(), filepath.Join("big", "SKILL.md")) {
		t.Errorf("skills %v, errors %v: want the file refused by name", set.All(), set.Errors)
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte("---\nname: pdf\ndescription: d\nallowed-tools: Read, Bash(ls:*)\n---\nbody\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseFile("f.md", "/x/y", data)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not positioned", err)
			}
			return
		}
		if s.Name == "" || s.Description == "" || s.Body == "" {
			t.Fatalf("parsed a skill without name, description or body: %+v", s)
		}
		for _, g := range s.Grants {
			if err := permission.ValidateRule(g.Rule); err != nil || g.Origin.Line < 2 {
				t.Fatalf("grant %+v: %v", g, err)
			}
		}
	})
}
