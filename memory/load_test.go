package memory

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
)

// tree is a test layout: a home, Reins' and Claude Code's user folders, a managed folder and a
// git repository with the working directory repo/app.
type tree struct {
	base, home, repo, cwd string
	opts                  Options
}

func newTree(t *testing.T) *tree {
	t.Helper()
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	tr := &tree{base: base, home: filepath.Join(base, "home"), repo: filepath.Join(base, "repo")}
	tr.cwd = filepath.Join(tr.repo, "app")
	for _, d := range []string{tr.home, filepath.Join(tr.repo, ".git"), tr.cwd, filepath.Join(base, "managed")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	tr.opts = Options{
		Cwd: tr.cwd, Home: tr.home,
		ConfigDir: filepath.Join(tr.home, ".reins"), ClaudeConfigDir: filepath.Join(tr.home, ".claude"),
		ManagedDirs: []string{filepath.Join(base, "managed")},
		Trusted:     true,
	}
	return tr
}

// write puts files (paths relative to base) in place.
func (tr *tree) write(t *testing.T, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(tr.base, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// rel names files relative to base, with their source, for comparison.
// rootedFile is a file every system of its kind has, named from the root without a drive: an
// import of it from the project is an import from outside.
var rootedFile = map[bool]string{false: "/etc/hostname", true: "/Windows/win.ini"}[runtime.GOOS == "windows"]

func (tr *tree) rel(files []File) []string {
	var out []string
	for _, f := range files {
		r, _ := filepath.Rel(tr.base, f.Path)
		s := string(f.Source) + " " + filepath.ToSlash(r)
		if f.Untrusted {
			s += " (untrusted)"
		}
		out = append(out, s)
	}
	return out
}

// fakeAccess denies files named denied.md or one of deny, calls .env and id_rsa secrets, and
// records the reads.
type fakeAccess struct {
	deny  []string
	mu    sync.Mutex
	reads []string
}

func (a *fakeAccess) CheckRead(_ context.Context, p string) string {
	if b := filepath.Base(p); b == "denied.md" || slices.Contains(a.deny, b) {
		return "denied by a rule"
	}
	return ""
}

func (a *fakeAccess) Secret(_ context.Context, p string) bool {
	b := filepath.Base(p)
	return b == ".env" || b == "id_rsa"
}

func (a *fakeAccess) Read(_ context.Context, p string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reads = append(a.reads, p)
}

func load(t *testing.T, tr *tree) ([]File, []Warning) {
	t.Helper()
	l := NewLoader(tr.opts)
	files, err := l.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return files, l.Warnings()
}

func TestLoadOrderAndImports(t *testing.T) {
	cases := []struct {
		name     string
		files    map[string]string
		untrust  bool
		deny     []string // names of files the Read rules deny, besides denied.md
		want     []string
		warnings []string // substrings, one per warning in order
	}{
		{
			name: "hierarchy in order, root down to cwd",
			files: map[string]string{
				"managed/CLAUDE.md":          "org",
				"home/.reins/AGENTS.md":      "reins user",
				"home/.claude/CLAUDE.md":     "claude user",
				"repo/CLAUDE.md":             "root",
				"repo/AGENTS.md":             "root agents",
				"repo/app/.claude/CLAUDE.md": "app dot",
				"repo/app/CLAUDE.local.md":   "mine",
				"CLAUDE.md":                  "above the repository: never read",
			},
			want: []string{"managed managed/CLAUDE.md", "user home/.reins/AGENTS.md", "user home/.claude/CLAUDE.md",
				"project repo/CLAUDE.md", "project repo/AGENTS.md", "project repo/app/.claude/CLAUDE.md", "local repo/app/CLAUDE.local.md"},
		},
		{
			name: "imports relative, home, nested, read once",
			files: map[string]string{
				"repo/CLAUDE.md":           "see @AGENTS.md and @docs/style.md\n@~/notes.md",
				"repo/AGENTS.md":           "agents",
				"repo/docs/style.md":       "style, see @../AGENTS.md",
				"home/notes.md":            "notes",
				"repo/app/CLAUDE.local.md": "@../CLAUDE.md again",
			},
			want: []string{"project repo/CLAUDE.md", "project repo/AGENTS.md", "project repo/docs/style.md", "project home/notes.md", "local repo/app/CLAUDE.local.md"},
		},
		{
			name: "not in code: spans, fences, indented blocks, e-mail",
			files: map[string]string{
				"repo/CLAUDE.md": "`@a.md` x@b.md\n```\n@c.md\n```\n\n    @d.md\n\n~~~~\n@e.md\n~~~\n~~~~\n@f.md",
				"repo/a.md":      "a", "repo/b.md": "b", "repo/c.md": "c", "repo/d.md": "d", "repo/e.md": "e", "repo/f.md": "f",
			},
			want: []string{"project repo/CLAUDE.md", "project repo/f.md"},
		},
		{
			name: "a cycle is read once",
			files: map[string]string{
				"repo/CLAUDE.md": "@a.md", "repo/a.md": "@b.md", "repo/b.md": "@a.md @CLAUDE.md",
			},
			want: []string{"project repo/CLAUDE.md", "project repo/a.md", "project repo/b.md"},
		},
		{
			name: "depth limit",
			files: map[string]string{
				"repo/CLAUDE.md": "@1.md", "repo/1.md": "@2.md", "repo/2.md": "@3.md", "repo/3.md": "@4.md",
				"repo/4.md": "@5.md", "repo/5.md": "@6.md", "repo/6.md": "too deep",
			},
			want:     []string{"project repo/CLAUDE.md", "project repo/1.md", "project repo/2.md", "project repo/3.md", "project repo/4.md", "project repo/5.md"},
			warnings: []string{"5.md:1:1: import @6.md not followed: imports nest at most 5 deep"},
		},
		{
			name:     "a missing import is a positioned warning",
			files:    map[string]string{"repo/CLAUDE.md": "x\n  see @gone.md"},
			want:     []string{"project repo/CLAUDE.md"},
			warnings: []string{"repo/CLAUDE.md:2:7: import " + "", "gone.md: no such file"},
		},
		{
			name:    "untrusted project: marked, and no import outside the project",
			untrust: true,
			files: map[string]string{
				"repo/CLAUDE.md":           "@~/notes.md @" + rootedFile + " @inside.md",
				"repo/inside.md":           "in",
				"home/notes.md":            "notes",
				"home/.claude/CLAUDE.md":   "@~/notes.md",
				"repo/app/CLAUDE.local.md": "mine",
			},
			want:     []string{"user home/.claude/CLAUDE.md", "user home/notes.md", "project repo/CLAUDE.md (untrusted)", "project repo/inside.md (untrusted)", "local repo/app/CLAUDE.local.md"},
			warnings: []string{"notes.md left out: it is outside the project", filepath.Base(rootedFile) + " left out: it is outside the project"},
		},
		{
			name:     "a project's memory imports no secret file, trusted or not",
			files:    map[string]string{"repo/CLAUDE.md": "@.env @../home/.ssh/id_rsa", "repo/.env": "KEY=1", "home/.ssh/id_rsa": "key"},
			want:     []string{"project repo/CLAUDE.md"},
			warnings: []string{".env left out: it is a file of secrets", "id_rsa left out: it is a file of secrets"},
		},
		{
			name:  "the person's memory imports a secret file, and the read is reported",
			files: map[string]string{"home/.claude/CLAUDE.md": "@~/.ssh/id_rsa", "home/.ssh/id_rsa": "key"},
			want:  []string{"user home/.claude/CLAUDE.md", "user home/.ssh/id_rsa"},
		},
		{
			name: "imports meet the Read rules, whoever imports",
			files: map[string]string{
				"managed/CLAUDE.md":      "@denied.md",
				"managed/denied.md":      "x",
				"home/.claude/CLAUDE.md": "ok\n @~/denied.md",
				"home/denied.md":         "x",
				"repo/CLAUDE.md":         "@denied.md @fine.md",
				"repo/denied.md":         "x",
				"repo/fine.md":           "fine",
			},
			want: []string{"managed managed/CLAUDE.md", "user home/.claude/CLAUDE.md", "project repo/CLAUDE.md", "project repo/fine.md"},
			warnings: []string{"managed/CLAUDE.md:1:1: " + "", "denied.md left out: denied by a rule",
				"home/.claude/CLAUDE.md:2:2: ", "repo/CLAUDE.md:1:1: "},
		},
		{
			name:     "a project's own memory file meets the Read rules too; the person's is what memory is",
			files:    map[string]string{"repo/CLAUDE.md": "x", "home/.claude/CLAUDE.md": "mine"},
			deny:     []string{"CLAUDE.md"},
			want:     []string{"user home/.claude/CLAUDE.md"},
			warnings: []string{"repo/CLAUDE.md: ", "CLAUDE.md left out: denied by a rule"},
		},
		{
			name:     "binary file",
			files:    map[string]string{"repo/CLAUDE.md": "@bin.md", "repo/bin.md": "a\x00b"},
			want:     []string{"project repo/CLAUDE.md"},
			warnings: []string{"it holds NUL bytes"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			tr.write(t, c.files)
			tr.opts.Trusted = !c.untrust
			access := &fakeAccess{deny: c.deny}
			tr.opts.Access = access
			files, warns := load(t, tr)
			for _, f := range files {
				own := f.ImportedBy == "" && (f.Source == SourceUser || f.Source == SourceManaged)
				if !own && access.CheckRead(context.Background(), f.Path) != "" {
					t.Errorf("%s was read, which the rules deny", f.Path)
				}
			}
			if got, want := len(access.reads), len(files); got != want {
				t.Errorf("%d reads reported for %d files: %v", got, want, access.reads)
			}
			if got := strings.Join(tr.rel(files), "\n"); got != strings.Join(c.want, "\n") {
				t.Errorf("files:\n%s\nwant:\n%s", got, strings.Join(c.want, "\n"))
			}
			var ws []string
			for _, w := range warns {
				ws = append(ws, w.String())
			}
			all := strings.Join(ws, "\n")
			if len(c.warnings) == 0 && len(warns) > 0 {
				t.Errorf("unexpected warnings:\n%s", all)
			}
			for _, w := range c.warnings {
				// The cases name files with "/", the warnings as the system does.
				if !strings.Contains(all, w) && !strings.Contains(filepath.ToSlash(all), w) {
					t.Errorf("no warning with %q in:\n%s", w, all)
				}
			}
		})
	}
}

// TestHostileFilesAreLeftOut: a memory file or an import that is a FIFO, a device, a socket, a
// folder or over the size cap is left out with a warning, without blocking.
func TestHostileFilesAreLeftOut(t *testing.T) {
	for _, h := range boundedfiletest.Hostile(MaxFileBytes) {
		for _, asImport := range []bool{false, true} {
			name := h.Name
			if asImport {
				name += " imported"
			}
			t.Run(name, func(t *testing.T) {
				tr := newTree(t)
				target := filepath.Join(tr.repo, "CLAUDE.md")
				if asImport {
					tr.write(t, map[string]string{"repo/CLAUDE.md": "@x.md"})
					target = filepath.Join(tr.repo, "x.md")
				}
				h.Make(t, target)
				done := make(chan struct{})
				var files []File
				var warns []Warning
				go func() { defer close(done); files, warns = load(t, tr) }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatal("the load blocked")
				}
				if len(files) != btoi(asImport) || len(warns) != 1 || !strings.Contains(warns[0].Message, h.Want) {
					t.Fatalf("files %v, warnings %v; want a warning with %q", tr.rel(files), warns, h.Want)
				}
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTotalBudget: files past the total cap are left out with a warning naming it, and the
// content read never passes it.
func TestTotalBudget(t *testing.T) {
	tr := newTree(t)
	big := strings.Repeat("x", MaxFileBytes-1)
	files := map[string]string{}
	var imports []string
	for i := range 6 {
		name := filepath.Join("repo", "f"+string(rune('a'+i))+".md")
		files[name] = big
		imports = append(imports, "@"+filepath.Base(name))
	}
	files["repo/CLAUDE.md"] = strings.Join(imports, "\n")
	tr.write(t, files)
	got, warns := load(t, tr)
	total := 0
	for _, f := range got {
		total += len(f.Content)
	}
	if total > MaxTotalBytes || len(got) != 4 || len(warns) != 3 {
		t.Fatalf("%d files, %d bytes, warnings %v", len(got), total, warns)
	}
	if !strings.Contains(warns[0].Message, "may total at most") {
		t.Fatalf("warning %v", warns[0])
	}
}

// TestNestedOnce: a folder's memory comes when a path in it is first touched, once, folders
// above it first; paths outside the working directory bring nothing.
func TestNestedOnce(t *testing.T) {
	tr := newTree(t)
	tr.write(t, map[string]string{
		"repo/app/CLAUDE.md":               "top, loaded at start",
		"repo/app/svc/CLAUDE.md":           "svc",
		"repo/app/svc/api/AGENTS.md":       "api @../CLAUDE.md",
		"repo/app/svc/api/handler.go":      "package api",
		"repo/other/CLAUDE.md":             "outside cwd",
		"repo/app/svc/api/CLAUDE.local.md": "mine",
	})
	l := NewLoader(tr.opts)
	ctx := context.Background()
	start, err := l.Load(ctx)
	if err != nil || len(start) != 1 {
		t.Fatalf("start %v %v", tr.rel(start), err)
	}
	got, err := l.Nested(ctx, filepath.Join(tr.cwd, "svc", "api", "handler.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := "nested repo/app/svc/CLAUDE.md\nnested repo/app/svc/api/AGENTS.md\nnested repo/app/svc/api/CLAUDE.local.md"
	if s := strings.Join(tr.rel(got), "\n"); s != want {
		t.Fatalf("nested:\n%s\nwant:\n%s", s, want)
	}
	for _, p := range []string{filepath.Join(tr.cwd, "svc", "api"), filepath.Join(tr.repo, "other", "x.go"), tr.cwd, "relative/x"} {
		if again, _ := l.Nested(ctx, p); len(again) != 0 {
			t.Fatalf("%s: again %v", p, tr.rel(again))
		}
	}
	if s := RenderNested(got); !strings.HasPrefix(s, "<system-reminder>") || !strings.Contains(s, "Contents of "+filepath.Join(tr.cwd, "svc", "CLAUDE.md")) {
		t.Fatalf("render: %s", s)
	}
}

// TestRenderFramesUntrustedApart: an untrusted project's files never sit under the framing that
// makes instructions override.
func TestRenderFramesUntrustedApart(t *testing.T) {
	s := Render([]File{
		{Path: "/u/CLAUDE.md", Source: SourceUser, Content: "user rule"},
		{Path: "/p/CLAUDE.md", Source: SourceProject, Content: "repo rule", Untrusted: true},
		{Path: "/p/empty.md", Source: SourceProject, Content: "\n"},
	})
	override := strings.Index(s, "OVERRIDE")
	untrusted := strings.Index(s, "# Project memory (untrusted)")
	user, repo := strings.Index(s, "user rule"), strings.Index(s, "repo rule")
	if override < 0 || untrusted < 0 || !(override < user && user < untrusted && untrusted < repo) || strings.Contains(s, "empty.md") {
		t.Fatalf("render:\n%s", s)
	}
	if Render(nil) != "" {
		t.Fatal("no files should render nothing")
	}
}

func TestCancelledLoadIsAnError(t *testing.T) {
	tr := newTree(t)
	tr.write(t, map[string]string{"repo/CLAUDE.md": "x"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewLoader(tr.opts).Load(ctx); err == nil {
		t.Fatal("a cancelled load succeeded")
	}
}
