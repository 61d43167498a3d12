package frontmatter

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var known = []string{"name", "description", "allowed-tools", "disable-model-invocation"}

func TestParse(t *testing.T) {
	tests := []struct {
		name, src string
		present   bool
		body      string
		bodyLine  int
		wantErr   string
	}{
		{name: "header and body", src: "---\nname: x\n---\nhello\n", present: true, body: "hello\n", bodyLine: 4},
		{name: "no header: the whole file is the body", src: "just text\n", body: "just text\n", bodyLine: 1},
		{name: "empty header", src: "---\n---\nb", present: true, body: "b", bodyLine: 3},
		{name: "byte-order mark and CRLF", src: "\ufeff---\r\nname: x\r\n---\r\nb\r\n", present: true, body: "b\n", bodyLine: 4},
		{name: "closing fence with trailing blanks", src: "---\nname: x\n---  \nb", present: true, body: "b", bodyLine: 4},
		{name: "unclosed", src: "---\nname: x\n", wantErr: `f.md:1:1: the front matter opened here has no closing "---" line`},
		{name: "unknown key with a suggestion", src: "---\nallowed-tool: Read\n---\n", wantErr: `f.md:2:1: unknown key "allowed-tool" (did you mean "allowed-tools"?)`},
		{name: "duplicate key", src: "---\nname: a\nname: b\n---\n", wantErr: `f.md:3:1: duplicate key "name"`},
		{name: "not a mapping", src: "---\n- a\n---\n", wantErr: "f.md:2:1: front matter must be a mapping"},
		{name: "broken YAML names its line", src: "---\nname: x\ndescription: [a\n---\n", wantErr: "f.md:"},
		{name: "too large", src: "---\n" + strings.Repeat("x", 200) + "\n---\n", wantErr: "f.md: file is larger than 100 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("f.md", []byte(tt.src), known, 100)
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
			if d.Present != tt.present || string(d.Body) != tt.body || d.BodyLine != tt.bodyLine {
				t.Errorf("got present=%v body=%q line=%d, want %v %q %d", d.Present, d.Body, d.BodyLine, tt.present, tt.body, tt.bodyLine)
			}
		})
	}
}

func TestValues(t *testing.T) {
	src := "---\nname: \" review \"\ndescription: 7\nallowed-tools: Read, Bash(git diff:*) ,\ndisable-model-invocation: yes\n---\n"
	d, err := Parse("f.md", []byte(src), known, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := d.Str("name", true); s != "review" || err != nil {
		t.Errorf("name = %q, %v", s, err)
	}
	if l, err := d.List("allowed-tools"); !slices.Equal(l, []string{"Read", "Bash(git diff:*)"}) || err != nil {
		t.Errorf("allowed-tools = %q, %v", l, err)
	}
	if _, err := d.Bool("disable-model-invocation"); err == nil || !strings.Contains(err.Error(), "f.md:5:27:") {
		t.Errorf("yes is not a YAML 1.2 boolean here, want a positioned error; got %v", err)
	}
	if _, err := d.Str("missing", true); err == nil || !strings.Contains(err.Error(), `f.md:2:1: missing required key "missing"`) {
		t.Errorf("missing required key: %v", err)
	}
	seq, _ := Parse("f.md", []byte("---\nallowed-tools:\n  - Read\n  - [x]\n---\n"), known, 1<<10)
	if _, err := seq.List("allowed-tools"); err == nil || !strings.Contains(err.Error(), "f.md:4:5:") {
		t.Errorf("a nested list entry: %v", err)
	}
	m, _ := Parse("f.md", []byte("---\nname: {a: b}\n---\n"), known, 1<<10)
	if _, err := m.Str("name", false); err == nil || !strings.Contains(err.Error(), `f.md:2:7: "name" must be a string`) {
		t.Errorf("a mapping for a string: %v", err)
	}
}

// FuzzParse: any input either parses or fails with a positioned *Error; it never panics, and
// the body of a parsed file is a suffix of its (normalised) input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"---\nname: x\n---\nb", "", "---\n", "---\n---\n", "---\n- [\n---\n", "\ufeff---\r\nname: x\r\n---\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d, err := Parse("f.md", []byte(src), known, 1<<16)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not an *Error", err)
			}
			return
		}
		norm := strings.ReplaceAll(strings.TrimPrefix(src, "\ufeff"), "\r\n", "\n")
		if !strings.HasSuffix(norm, string(d.Body)) && !strings.HasSuffix(strings.TrimPrefix(src, "\ufeff"), string(d.Body)) {
			t.Fatalf("body %q is not a suffix of the input", d.Body)
		}
		for _, k := range known {
			d.Str(k, false)
			d.List(k)
			d.Entries(k)
			d.Bool(k)
		}
	})
}

// TestEntriesPositions: each entry is placed where it was written, a comma-separated plain
// string's entries each at its own column; a quoted or folded string's at the string's.
func TestEntriesPositions(t *testing.T) {
	tests := []struct {
		name, src string
		want      []Entry
	}{
		{"sequence", "---\nallowed-tools:\n  - Read\n  - Bash(git diff:*)\n---\n", []Entry{{"Read", 3, 5}, {"Bash(git diff:*)", 4, 5}}},
		{"plain string", "---\nname: x\nallowed-tools: Read,  Grep ,Bash(npm run lint:*)\n---\n", []Entry{{"Read", 3, 16}, {"Grep", 3, 23}, {"Bash(npm run lint:*)", 3, 29}}},
		{"empty entries skipped", "---\nallowed-tools: Read,,Grep\n---\n", []Entry{{"Read", 2, 16}, {"Grep", 2, 22}}},
		{"quoted string", "---\nallowed-tools: \"Read, Grep\"\n---\n", []Entry{{"Read", 2, 16}, {"Grep", 2, 16}}},
		{"flow sequence", "---\nallowed-tools: [Read, Grep]\n---\n", []Entry{{"Read", 2, 17}, {"Grep", 2, 23}}},
		{"absent", "---\nname: x\n---\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("f.md", []byte(tt.src), known, 1<<10)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Entries("allowed-tools")
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("Entries = %v, %v; want %v", got, err, tt.want)
			}
			// The entries are List's values, in List's order.
			list, _ := d.List("allowed-tools")
			var vals []string
			for _, e := range got {
				vals = append(vals, e.Value)
			}
			if !slices.Equal(vals, list) {
				t.Errorf("values %q, List %q", vals, list)
			}
		})
	}
	d, _ := Parse("f.md", []byte("---\nallowed-tools: {a: b}\n---\n"), known, 1<<10)
	if _, err := d.Entries("allowed-tools"); err == nil || !strings.Contains(err.Error(), "f.md:2:16:") {
		t.Errorf("a mapping: %v, want an error at its position", err)
	}
}
