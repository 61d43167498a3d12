package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadDiscoveryAndPrecedence(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude/commands/review.md"), "user review\n")
	write(t, filepath.Join(home, ".claude/commands/mine.md"), "---\ndescription: mine\n---\nonly mine\n")
	write(t, filepath.Join(project, ".claude/commands/review.md"), "---\ndescription: project review\n---\nreview $1\n")
	write(t, filepath.Join(project, ".claude/commands/frontend/lint.md"), "lint it\n")
	write(t, filepath.Join(project, ".reins/commands/a/b/deep.md"), "deep\n")
	write(t, filepath.Join(project, ".claude/commands/broken.md"), "---\ndescription: [x\n---\nbody\n")
	write(t, filepath.Join(project, ".claude/commands/notes.txt"), "not a command\n")
	set := Load(context.Background(), Dirs(filepath.Join(home, ".claude"), filepath.Join(home, ".reins"), project))

	var names []string
	for _, c := range set.All() {
		names = append(names, c.Name)
	}
	if want := []string{"a:b:deep", "frontend:lint", "mine", "review"}; !slices.Equal(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	review, _ := set.Lookup("review")
	if review.Source != SourceProject || review.Description != "project review" {
		t.Errorf("review = %+v, want the project's", review)
	}
	if len(set.Shadowed) != 1 || !strings.Contains(set.Shadowed[0], filepath.Join(home, ".claude/commands/review.md")) {
		t.Errorf("Shadowed = %v, want the user's review named", set.Shadowed)
	}
	if lint, _ := set.Lookup("frontend:lint"); lint.Description != "lint it" {
		t.Errorf("a command without a description is described by its first line: %q", lint.Description)
	}
	if len(set.Errors) != 1 || !strings.Contains(set.Errors[0].Error(), "broken.md:2:") {
		t.Errorf("Errors = %v, want broken.md at its line", set.Errors)
	}
}

func TestParseErrorsArePositioned(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"unknown key", "---\nallowed_tools: Read\n---\nb", `c.md:2:1: unknown key "allowed_tools" (did you mean "allowed-tools"?)`},
		{"bad rule in a list", "---\nallowed-tools:\n  - Read\n  - Bash(npm\n---\nb", "c.md:4:5: allowed-tools: Bash(npm: mismatched parentheses"},
		{"bad rule in a string gets its own column", "---\nallowed-tools: Read, Bash(npm\n---\nb", "c.md:2:22: allowed-tools: Bash(npm: mismatched parentheses"},
		{"empty rule", "---\nallowed-tools: [\"\"]\n---\nb", "c.md:2:"},
		{"not a bool", "---\ndisable-model-invocation: maybe\n---\nb", `c.md:2:27: "disable-model-invocation" must be true or false`},
		{"empty body", "---\ndescription: d\n---\n\n", "c.md:4:1: the command's prompt"},
		{"unclosed", "---\ndescription: d\n", "c.md:1:1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.md", []byte(tt.src), "c", SourceUser)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNameOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"review.md", "review"},
		{"frontend/lint.md", "frontend:lint"},
		{"a/b/c.v2.md", "a:b:c.v2"},
		{"has space.md", ""},
		{".hidden.md", ""},
		{"x/.md", ""},
	}
	for _, tt := range tests {
		got, err := NameOf(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("NameOf(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestLoadBounds(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "big.md"), strings.Repeat("x", MaxFileSize+1))
	write(t, filepath.Join(dir, "ok.md"), "fine\n")
	deep := dir
	for i := 0; i < MaxDepth+1; i++ {
		deep = filepath.Join(deep, fmt.Sprint("d", i))
	}
	write(t, filepath.Join(deep, "deep.md"), "too deep\n")
	// A FIFO too, where the system has them (fifo_unix_test.go).
	refused := append([]string{"big.md", "deeper than"}, plantFIFO(t, dir)...)
	set := Load(context.Background(), []Root{{dir, SourceUser}})
	if _, ok := set.Lookup("ok"); !ok || len(set.All()) != 1 {
		t.Errorf("commands = %v, want only ok", set.All())
	}
	joined := fmt.Sprint(set.Errors)
	for _, want := range refused {
		if !strings.Contains(joined, want) {
			t.Errorf("errors %s do not name %s", joined, want)
		}
	}
}

func TestLoadCountBound(t *testing.T) {
	dir := t.TempDir()
	for i := range MaxCommands + 2 {
		write(t, filepath.Join(dir, fmt.Sprintf("c%04d.md", i)), "x\n")
	}
	set := Load(context.Background(), []Root{{dir, SourceUser}})
	if len(set.All()) != MaxCommands || len(set.Errors) != 2 {
		t.Errorf("%d commands, %d errors; want %d and 2", len(set.All()), len(set.Errors), MaxCommands)
	}
}

func TestRulesAreTracedAndWaitForTrust(t *testing.T) {
	src := "---\ndescription: lint\nallowed-tools:\n  - Bash(npm run lint:*)\n  - Read\n---\nrun it\n"
	c, err := Parse("/p/.claude/commands/lint.md", []byte(src), "lint", SourceProject)
	if err != nil {
		t.Fatal(err)
	}
	rules := c.Rules(true)
	if len(rules) != 2 {
		t.Fatalf("rules = %v", rules)
	}
	r := rules[0]
	if r.Source != permission.SourceCommand || r.Behavior != permission.Allow || r.Value.String() != "Bash(npm run lint:*)" || r.Origin.String() != "/p/.claude/commands/lint.md:4:5" {
		t.Errorf("rule = %s", r.Describe())
	}
	if got := c.Rules(false); got != nil {
		t.Errorf("an untrusted project's command brings rules: %v", got)
	}
	if !strings.Contains(c.Ignored(false), "not trusted") || c.Ignored(true) != "" {
		t.Errorf("Ignored = %q / %q", c.Ignored(false), c.Ignored(true))
	}
	user, _ := Parse("u.md", []byte(src), "lint", SourceUser)
	if len(user.Rules(false)) != 2 {
		t.Errorf("a user's command waits for the project's trust")
	}
}

// fakeHost answers reads and commands from maps and records what it was asked.
type fakeHost struct {
	files, outputs map[string]string
	refused        map[string]string
	asked          []string
}

func (h *fakeHost) Read(_ context.Context, p string) (string, error) {
	h.asked = append(h.asked, "Read "+p)
	if r, ok := h.refused[p]; ok {
		return "", errors.New(r)
	}
	return h.files[p], nil
}

func (h *fakeHost) Bash(_ context.Context, cmd string) (string, error) {
	h.asked = append(h.asked, "Bash "+cmd)
	if r, ok := h.refused[cmd]; ok {
		return "", errors.New(r)
	}
	return h.outputs[cmd], nil
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, body, args, want string
		asked                  []string
	}{
		{name: "arguments", body: "review $ARGUMENTS now", args: "  main  ", want: "review main now"},
		{name: "positional with quotes", body: "a=$1 b=$2 c=[$3]", args: `one "two words"`, want: "a=one b=two words c=[]"},
		{name: "no placeholder appends", body: "do it\n", args: "x y", want: "do it\n\n\nARGUMENTS: x y"},
		{name: "no placeholder no args", body: "do it", want: "do it"},
		{name: "dollar kept", body: "cost $5 and $HOME and $", args: "", want: "cost  and $HOME and $"},
		{name: "bang line", body: "status:\n!`git status`\nend", want: "status:\nclean\nend", asked: []string{"Bash git status"}},
		{name: "bang with an argument", body: "!`git log $1`", args: "main", want: "log of main", asked: []string{"Bash git log main"}},
		{name: "include", body: "see @notes.md please", want: "see @notes.md\n<file path=\"notes.md\">\nN\n</file> please", asked: []string{"Read notes.md"}},
		{name: "an email is not an include", body: "mail a@b.c", want: "mail a@b.c"},
		{name: "arguments never become includes or commands", body: "say $ARGUMENTS", args: "@secret !`rm -rf x`", want: "say @secret !`rm -rf x`"},
		{name: "unclosed backtick is text", body: "!`nope", want: "!`nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &fakeHost{files: map[string]string{"notes.md": "N"}, outputs: map[string]string{"git status": "clean", "git log main": "log of main"}}
			c := &Command{Name: "c", File: "c.md", Body: tt.body, BodyLine: 1}
			got, err := c.Expand(context.Background(), tt.args, h)
			if err != nil || got != tt.want {
				t.Errorf("Expand = %q, %v; want %q", got, err, tt.want)
			}
			if !slices.Equal(h.asked, tt.asked) {
				t.Errorf("asked %q, want %q", h.asked, tt.asked)
			}
		})
	}
}

func TestExpandStopsAtARefusal(t *testing.T) {
	h := &fakeHost{refused: map[string]string{"rm -rf build": "Permission to use Bash with command rm -rf build has been denied."}}
	c := &Command{Name: "clean", File: "/p/clean.md", Body: "first\n!`rm -rf build`\n!`echo after`\n", BodyLine: 4}
	_, err := c.Expand(context.Background(), "", h)
	var se *StopError
	if !errors.As(err, &se) || se.Line != 5 || !strings.Contains(err.Error(), "/clean stopped at /p/clean.md:5 (!`rm -rf build`): Permission to use Bash") {
		t.Fatalf("err = %v", err)
	}
	if slices.Contains(h.asked, "Bash echo after") {
		t.Error("a line after the refused one ran")
	}
	h = &fakeHost{refused: map[string]string{".env": "Permission to read .env has been denied."}}
	c = &Command{Name: "x", File: "x.md", Body: "@.env", BodyLine: 1}
	if _, err := c.Expand(context.Background(), "", h); !errors.As(err, &se) || !strings.Contains(se.Reason, "denied") {
		t.Errorf("a refused include: %v", err)
	}
}

func TestExpandBound(t *testing.T) {
	c := &Command{Name: "big", File: "b.md", Body: strings.Repeat("$ARGUMENTS", 1000), BodyLine: 1}
	if _, err := c.Expand(context.Background(), strings.Repeat("x", 2000), &fakeHost{}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("err = %v, want the prompt bound", err)
	}
}

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "", want: nil},
		{in: "  a  b ", want: []string{"a", "b"}},
		{in: `'a b' "c d" e\ f`, want: []string{"a b", "c d", "e f"}},
		{in: `"say \"hi\" \\ \n"`, want: []string{`say "hi" \ \n`}},
		{in: `'it''s'`, want: []string{"its"}},
		{in: `x""`, want: []string{"x"}},
		{in: `''`, want: []string{""}},
		{in: `'open`, err: true},
		{in: `"open`, err: true},
	}
	for _, tt := range tests {
		got, err := SplitArgs(tt.in)
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// A plugin's commands are "<plugin>:<name>", also from a root that is one file (a manifest's
// commands entry), and their rules wait for the project's trust as the project's do.
func TestPluginCommands(t *testing.T) {
	plugin, extra := t.TempDir(), t.TempDir()
	write(t, filepath.Join(plugin, "commands/lint.md"), "---\nallowed-tools: Bash(npm run lint:*)\n---\nlint\n")
	write(t, filepath.Join(plugin, "commands/review/security.md"), "review security\n")
	write(t, filepath.Join(extra, "ship.md"), "ship it\n")
	set := Load(context.Background(), []Root{
		{filepath.Join(plugin, "commands"), PluginSource("kit")},
		{filepath.Join(extra, "ship.md"), PluginSource("kit")},
	})
	var names []string
	for _, c := range set.All() {
		names = append(names, c.Label())
	}
	if want := []string{"/kit:lint (plugin:kit)", "/kit:review:security (plugin:kit)", "/kit:ship (plugin:kit)"}; !slices.Equal(names, want) {
		t.Errorf("commands = %v (errors %v), want %v", names, set.Errors, want)
	}
	lint, _ := set.Lookup("kit:lint")
	if lint.Rules(false) != nil || !strings.Contains(lint.Ignored(false), "not trusted") {
		t.Errorf("an untrusted project's plugin command brings %v", lint.Rules(false))
	}
	if len(lint.Rules(true)) != 1 {
		t.Errorf("trusted: rules %v", lint.Rules(true))
	}
	if p, ok := PluginSource("kit").Plugin(); !ok || p != "kit" || SourceUser.NeedsTrust() {
		t.Errorf("Plugin() = %q, %v", p, ok)
	}
}

// With shell execution off (disableSkillShellExecution, --restricted) a !`cmd` line runs
// nothing and reads as the placeholder; includes still go to the host.
func TestExpandWithoutShell(t *testing.T) {
	h := &fakeHost{files: map[string]string{"notes.md": "N"}, outputs: map[string]string{"git status": "clean"}}
	c := &Command{Name: "c", File: "c.md", Body: "status:\n!`git status`\nsee @notes.md", BodyLine: 1}
	got, err := c.Expand(context.Background(), "", NoShell(h))
	if err != nil {
		t.Fatal(err)
	}
	if want := "status:\n" + ShellDisabledText + "\nsee @notes.md\n<file path=\"notes.md\">\nN\n</file>"; got != want {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	if !slices.Equal(h.asked, []string{"Read notes.md"}) {
		t.Errorf("asked %q: the shell line reached the host", h.asked)
	}
}
