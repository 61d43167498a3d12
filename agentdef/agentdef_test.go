package agentdef

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
	"github.com/reinsdev/reins/permission"
)

func TestParseFile(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    *Definition
		wantErr string // substring, with the position
	}{
		{
			name: "comma list",
			src:  "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep,  Glob\nmodel: haiku\npermissionMode: acceptEdits\n---\nYou review code.\n",
			want: &Definition{Name: "reviewer", Description: "Reviews diffs", Tools: []string{"Read", "Grep", "Glob"},
				Model: "haiku", PermissionMode: permission.ModeAcceptEdits, Prompt: "You review code."},
		},
		{
			name: "yaml list and disallowed",
			src:  "---\nname: x\ndescription: d\ntools:\n  - Read\n  - Bash\ndisallowedTools: [Bash]\n---\nbody\n",
			want: &Definition{Name: "x", Description: "d", Tools: []string{"Read", "Bash"}, DisallowedTools: []string{"Bash"}, Prompt: "body"},
		},
		{
			name: "crlf and bom",
			src:  "\ufeff---\r\nname: x\r\ndescription: d\r\n---\r\nbody\r\n",
			want: &Definition{Name: "x", Description: "d", Prompt: "body"},
		},
		{name: "no front matter", src: "name: x\n", wantErr: "f.md:1:1: missing YAML front matter"},
		{name: "unterminated", src: "---\nname: x\ndescription: d\n", wantErr: `f.md:1:1: the front matter opened here has no closing "---" line`},
		{name: "unknown key", src: "---\nname: x\ndescription: d\npermisionMode: plan\n---\nb\n", wantErr: `f.md:4:1: unknown key "permisionMode" (did you mean "permissionMode"?)`},
		{name: "duplicate key", src: "---\nname: x\nname: y\ndescription: d\n---\nb\n", wantErr: `f.md:3:1: duplicate key "name"`},
		{name: "missing name", src: "---\ndescription: d\n---\nb\n", wantErr: `missing required key "name"`},
		{name: "bad name", src: "---\nname: ../evil\ndescription: d\n---\nb\n", wantErr: `f.md:2:7: invalid agent name "../evil"`},
		{name: "empty description", src: "---\nname: x\ndescription: \"\"\n---\nb\n", wantErr: `f.md:3:14: "description" must not be empty`},
		{name: "bad mode", src: "---\nname: x\ndescription: d\npermissionMode: yolo\n---\nb\n", wantErr: "f.md:4:17: permissionMode:"},
		{name: "bubble is internal", src: "---\nname: x\ndescription: d\npermissionMode: bubble\n---\nb\n", wantErr: "f.md:4:17: permissionMode:"},
		{name: "tools wrong type", src: "---\nname: x\ndescription: d\ntools: {a: b}\n---\nb\n", wantErr: `f.md:4:8: "tools" must be a list`},
		{name: "name not a string", src: "---\nname: [a]\ndescription: d\n---\nb\n", wantErr: `f.md:2:7: "name" must be a string`},
		{name: "empty body", src: "---\nname: x\ndescription: d\n---\n\n", wantErr: "f.md:5:1: the system prompt"},
		{name: "yaml syntax", src: "---\nname: x\ndescription: [d\n---\nb\n", wantErr: "f.md:"},
		{name: "not a mapping", src: "---\n- a\n---\nb\n", wantErr: "front matter must be a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFile("f.md", []byte(tt.src), SourceProject)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				var pe *Error
				if !errors.As(err, &pe) {
					t.Errorf("error %T is not an *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Source, tt.want.File = SourceProject, "f.md"
			if !equalDef(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func equalDef(a, b *Definition) bool {
	return a.Name == b.Name && a.Description == b.Description && slices.Equal(a.Tools, b.Tools) &&
		slices.Equal(a.DisallowedTools, b.DisallowedTools) && a.Model == b.Model &&
		a.PermissionMode == b.PermissionMode && a.Prompt == b.Prompt && a.Source == b.Source && a.File == b.File
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func def(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body + "\n"
}

func TestLoadPrecedence(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, ".reins")
	write(t, filepath.Join(home, ".claude", "agents"), "a.md", def("shared", "from claude user", "u1"))
	write(t, filepath.Join(cfg, "agents"), "a.md", def("shared", "from reins user", "u2"))
	write(t, filepath.Join(cfg, "agents"), "only.md", def("useronly", "user", "u3"))
	write(t, filepath.Join(proj, ".claude", "agents"), "b.md", def("shared", "from claude project", "p1"))
	write(t, filepath.Join(proj, ".reins", "agents"), "b.md", def("Explore", "project overrides a built-in", "p2"))
	write(t, filepath.Join(proj, ".reins", "agents"), "bad.md", "---\nname: x\n---\n")
	write(t, filepath.Join(proj, ".reins", "agents"), "notes.txt", "ignored")

	flag, err := ParseJSON("--agents", []byte(`{"useronly": {"description": "flag", "prompt": "f"}}`), SourceFlag)
	if err != nil {
		t.Fatal(err)
	}
	s := Load(Dirs(home, cfg, proj), flag...)
	for name, want := range map[string]string{
		"shared": "from claude project", "Explore": "project overrides a built-in", "useronly": "flag", "Plan": "",
	} {
		d := s.Get(name)
		if d == nil {
			t.Fatalf("%s missing", name)
		}
		if want != "" && d.Description != want {
			t.Errorf("%s: description %q, want %q", name, d.Description, want)
		}
	}
	if s.Get("general-purpose") == nil || s.Get("general-purpose").Source != SourceBuiltin {
		t.Error("general-purpose built-in missing")
	}
	if len(s.Errors) != 1 || !strings.Contains(s.Errors[0].Error(), "bad.md") {
		t.Errorf("errors = %v, want one for bad.md", s.Errors)
	}
	names := []string{}
	for _, d := range s.All() {
		names = append(names, d.Name)
	}
	if !slices.IsSorted(names) {
		t.Errorf("All not sorted: %v", names)
	}
}

func TestLoadRefusesNonRegularAndHuge(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "big.md", "---\nname: big\ndescription: d\n---\n"+strings.Repeat("x", maxFileSize))
	// A device too, where the system puts one in a folder (device_unix_test.go).
	want := append([]string{"is too large"}, plantDevice(t, dir)...)
	s := Load([]Dir{{Path: dir, Source: SourceProject}})
	if s.Get("big") != nil {
		t.Error("an oversized file was loaded")
	}
	var msgs []string
	for _, e := range s.Errors {
		msgs = append(msgs, e.Error())
	}
	joined := strings.Join(msgs, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("errors = %s, want one saying %q", joined, w)
		}
	}
}

// TestHostileAgentFilesAreRefused: an agent file that is a FIFO, a device, a socket or over
// the cap is skipped with an error naming it, and never hangs the start-up.
func TestHostileAgentFilesAreRefused(t *testing.T) {
	for _, h := range boundedfiletest.Hostile(maxFileSize) {
		t.Run(h.Name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "hostile.md")
			h.Make(t, p)
			write(t, dir, "good.md", "---\nname: good\ndescription: d\n---\nprompt\n")
			done := make(chan *Set, 1)
			go func() { done <- Load([]Dir{{Path: dir, Source: SourceProject}}) }()
			var s *Set
			select {
			case s = <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("Load did not return")
			}
			if s.Get("good") == nil {
				t.Error("the good file beside it was not loaded")
			}
			if h.Name == "folder" {
				return // a folder named *.md is passed over
			}
			if len(s.Errors) != 1 || !strings.Contains(s.Errors[0].Error(), p+" "+h.Want) {
				t.Errorf("errors %v, want one containing %q", s.Errors, h.Want)
			}
		})
	}
}

func TestParseJSONErrors(t *testing.T) {
	for _, in := range []string{
		`[]`, `{"x": {"description": "d"}}`, `{"x": {"description": "d", "prompt": "p", "colour": 1}}`,
		`{"../x": {"description": "d", "prompt": "p"}}`, `{"x": {"description": "d", "prompt": "p", "permissionMode": "bubble"}}`,
	} {
		if _, err := ParseJSON("--agents", []byte(in), SourceFlag); err == nil || !strings.HasPrefix(err.Error(), "--agents:1:") {
			t.Errorf("ParseJSON(%s) = %v, want an error naming --agents and its line:col", in, err)
		}
	}
}

func TestBuiltinsAreReadOnlyWhereTheySaySo(t *testing.T) {
	for _, d := range Builtins() {
		if d.Name == "Explore" || d.Name == "Plan" {
			for _, w := range []string{"Edit", "Write", "NotebookEdit", "Agent"} {
				if !slices.Contains(d.DisallowedTools, w) {
					t.Errorf("%s may use %s", d.Name, w)
				}
			}
		}
		if d.Description == "" || d.Prompt == "" {
			t.Errorf("%s has no description or prompt", d.Name)
		}
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte("---\nname: x\ndescription: d\ntools: Read, Grep\n---\nbody\n"))
	f.Add([]byte("---\nname: x\ndescription: d\ntools: [a, {b: c}]\n---\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\nname: &a x\ndescription: *a\n---\nb"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseFile("f.md", data, SourceProject)
		if err != nil {
			return
		}
		if !validName().MatchString(d.Name) || d.Description == "" || d.Prompt == "" {
			t.Fatalf("accepted an invalid definition: %+v", d)
		}
		if d.PermissionMode == permission.ModeBubble {
			t.Fatal("accepted bubble mode")
		}
	})
}

// TestSetAdd: definitions added after loading (an SDK caller's initialize) replace those of
// the same name and are seen by concurrent readers.
func TestSetAdd(t *testing.T) {
	s := Load(nil)
	defs, err := ParseJSON("initialize agents", []byte(`{"Explore":{"description":"mine","prompt":"p"},"reviewer":{"description":"r","prompt":"p"}}`), SourceFlag)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			_ = s.Get("reviewer")
			_ = s.All()
		}
	}()
	s.Add(defs...)
	<-done
	if d := s.Get("Explore"); d == nil || d.Description != "mine" || d.Source != SourceFlag {
		t.Errorf("Explore = %+v, want the added definition", d)
	}
	if d := s.Get("reviewer"); d == nil || d.Source != SourceFlag {
		t.Errorf("reviewer = %+v", d)
	}
	if n := len(s.All()); n != 4 {
		t.Errorf("%d definitions, want the 3 built-ins with Explore replaced, plus reviewer", n)
	}
}
