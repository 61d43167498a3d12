package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func writeFile(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

type fsFixture struct {
	proj, outside, home string
}

func newFixture(t *testing.T) fsFixture {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fsFixture{proj: filepath.Join(root, "proj"), outside: filepath.Join(root, "outside"), home: filepath.Join(root, "home")}
	for _, d := range []string{f.proj, f.outside, f.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(f.proj, "a.txt"))
	writeFile(t, filepath.Join(f.proj, "src", "main.go"))
	writeFile(t, filepath.Join(f.proj, ".env"))
	writeFile(t, filepath.Join(f.proj, "deep", "x", ".env"))
	writeFile(t, filepath.Join(f.outside, "o.txt"))
	writeFile(t, filepath.Join(f.home, ".ssh", "id_rsa"))
	if err := os.MkdirAll(f.proj+"_evil", 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

// rulePath is the absolute path p as a rule names it, "//" and the path's POSIX form:
// //tmp/x on Unix, //c/users/x on Windows.
func rulePath(p string) string { return "/" + slashPath(p) }

type readCase struct {
	name  string
	mode  Mode
	rules []Rule
	path  string
	want  Behavior
}

func TestCheckRead(t *testing.T) {
	f := newFixture(t)
	runReadCases(t, f, []readCase{
		{"inside", ModeDefault, nil, "a.txt", Allow},
		{"inside absolute", ModeDefault, nil, filepath.Join(f.proj, "src/main.go"), Allow},
		{"outside", ModeDefault, nil, filepath.Join(f.outside, "o.txt"), Ask},
		{"sibling prefix is outside", ModeDefault, nil, f.proj + "_evil/x", Ask},
		{"dot-dot out", ModeDefault, nil, "src/../../outside/o.txt", Ask},
		{"deny rule bare", ModeDefault, rules(Deny, SourceProject, "Read(.env)"), ".env", Deny},
		{"deny rule bare matches any depth", ModeDefault, rules(Deny, SourceProject, "Read(.env)"), "deep/x/.env", Deny},
		{"deny rule dot-slash", ModeDefault, rules(Deny, SourceProject, "Read(./.env)"), ".env", Deny},
		{"deny rule case-insensitive", ModeDefault, rules(Deny, SourceProject, "Read(.ENV)"), ".env", Deny},
		{"deny in bypass", ModeBypass, rules(Deny, SourceProject, "Read(.env)"), ".env", Deny},
		{"deny dir/**", ModeDefault, rules(Deny, SourceUser, "Read(src/**)"), "src/main.go", Deny},
		{"deny dir/** matches the dir", ModeDefault, rules(Deny, SourceUser, "Read(src/**)"), "src", Deny},
		{"deny absolute //", ModeDefault, rules(Deny, SourceUser, "Read("+rulePath(f.outside)+"/**)"), filepath.Join(f.outside, "o.txt"), Deny},
		{"deny home ~/", ModeDefault, rules(Deny, SourceUser, "Read(~/.ssh/**)"), filepath.Join(f.home, ".ssh/id_rsa"), Deny},
		{"ask rule", ModeDefault, rules(Ask, SourceLocal, "Read(a.txt)"), "a.txt", Ask},
		{"allow rule outside", ModeDefault, rules(Allow, SourceUser, "Read("+rulePath(f.outside)+"/**)"), filepath.Join(f.outside, "o.txt"), Allow},
		{"edit allow implies read", ModeDefault, rules(Allow, SourceUser, "Edit("+rulePath(f.outside)+"/**)"), filepath.Join(f.outside, "o.txt"), Allow},
		{"UNC path asks", ModeDefault, nil, `\\server\share\x`, Ask},
		{"UNC slashes ask", ModeDefault, nil, "//server/share/x", Ask},
		{"triple-dot component asks", ModeDefault, nil, "a/.../b", Ask},
		{"bidi character asks", ModeDefault, nil, "a\u202etxt.exe", Ask},
		{"NUL byte denies", ModeDefault, nil, "a\x00b", Deny},
		{"tilde is home", ModeDefault, nil, "~/.ssh/id_rsa", Ask},
	})
}

func runReadCases(t *testing.T, f fsFixture, tests []readCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.rules {
				if tt.rules[i].Source == SourceUser {
					tt.rules[i].Root = f.home
				}
			}
			pc := mustNew(t, Config{Mode: tt.mode, Cwd: f.proj, Home: f.home, Rules: tt.rules})
			d := pc.CheckRead(context.Background(), tt.path)
			if d.Behavior != tt.want {
				t.Errorf("CheckRead(%q) = %s (%s), want %s", tt.path, d.Behavior, d.Message, tt.want)
			}
		})
	}
}

type writeCase struct {
	name   string
	mode   Mode
	rules  []Rule
	dirs   []string
	path   string
	want   Behavior
	reason ReasonType
}

func TestCheckWrite(t *testing.T) {
	f := newFixture(t)
	runWriteCases(t, f, []writeCase{
		{"default asks", ModeDefault, nil, nil, "new.txt", Ask, ReasonWorkingDir},
		{"acceptEdits inside", ModeAcceptEdits, nil, nil, "new.txt", Allow, ReasonMode},
		{"acceptEdits outside", ModeAcceptEdits, nil, nil, filepath.Join(f.outside, "n"), Ask, ReasonWorkingDir},
		{"acceptEdits additional dir", ModeAcceptEdits, nil, []string{f.outside}, filepath.Join(f.outside, "n"), Allow, ReasonMode},
		{"plan ignores Edit allow", ModePlan, rules(Allow, SourceLocal, "Edit(src/**)"), nil, "src/new.txt", Ask, ReasonWorkingDir},
		{"edit allow rule", ModeDefault, rules(Allow, SourceLocal, "Edit(src/**)"), nil, "src/new.txt", Allow, ReasonRule},
		{"allow dir/** is the project's dir only", ModeDefault, rules(Allow, SourceLocal, "Edit(src/**)"), nil, "lib/src/new.txt", Ask, ReasonWorkingDir},
		{"deny dir/** matches at any depth", ModeAcceptEdits, rules(Deny, SourceLocal, "Edit(src/**)"), nil, "lib/src/new.txt", Deny, ReasonRule},
		{"edit deny", ModeAcceptEdits, rules(Deny, SourceLocal, "Edit(src/**)"), nil, "src/main.go", Deny, ReasonRule},
		{"read deny blocks writes", ModeAcceptEdits, rules(Deny, SourceLocal, "Read(.env)"), nil, ".env", Deny, ReasonRule},
		{"edit ask", ModeAcceptEdits, rules(Ask, SourceLocal, "Edit(a.txt)"), nil, "a.txt", Ask, ReasonRule},
		{".git is protected", ModeAcceptEdits, nil, nil, ".git/config", Ask, ReasonSafetyCheck},
		{".GIT case variant", ModeAcceptEdits, nil, nil, ".GIT/hooks/pre-commit", Ask, ReasonSafetyCheck},
		{"nested .git", ModeAcceptEdits, nil, nil, "sub/.git/config", Ask, ReasonSafetyCheck},
		{".claude settings", ModeAcceptEdits, nil, nil, ".claude/settings.json", Ask, ReasonSafetyCheck},
		{".reins settings", ModeAcceptEdits, nil, nil, ".reins/settings.local.json", Ask, ReasonSafetyCheck},
		{".claude/worktrees exempt", ModeAcceptEdits, nil, nil, ".claude/worktrees/x/a.go", Allow, ReasonMode},
		{".bashrc", ModeAcceptEdits, nil, []string{f.home}, filepath.Join(f.home, ".bashrc"), Ask, ReasonSafetyCheck},
		{".config/git", ModeAcceptEdits, nil, []string{f.home}, filepath.Join(f.home, ".config/git/config"), Ask, ReasonSafetyCheck},
		{"allow rule cannot pre-approve protected", ModeDefault, rules(Allow, SourceUser, "Edit(**)"), nil, ".git/config", Ask, ReasonSafetyCheck},
		{"session rule opens .claude", ModeDefault, rules(Allow, SourceSession, "Edit(/.claude/**)"), nil, ".claude/settings.json", Allow, ReasonRule},
		{"file rule cannot open .claude", ModeDefault, rules(Allow, SourceLocal, "Edit(/.claude/**)"), nil, ".claude/settings.json", Ask, ReasonSafetyCheck},
	})
}

func runWriteCases(t *testing.T, f fsFixture, tests []writeCase) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(f.proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(f.proj, ".git", "config"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dirs []WorkingDir
			for _, d := range tt.dirs {
				dirs = append(dirs, WorkingDir{Path: d, Source: SourceCLIArg})
			}
			pc := mustNew(t, Config{Mode: tt.mode, Cwd: f.proj, Home: f.home, Rules: tt.rules, AdditionalDirs: dirs})
			d := pc.CheckWrite(context.Background(), tt.path)
			if d.Behavior != tt.want {
				t.Fatalf("CheckWrite(%q) = %s (%s), want %s", tt.path, d.Behavior, d.Message, tt.want)
			}
			var got ReasonType
			if d.Reason != nil {
				got = d.Reason.Type
			}
			if got != tt.reason {
				t.Errorf("reason = %q, want %q", got, tt.reason)
			}
		})
	}
}

func TestSourceRootAnchor(t *testing.T) {
	f := newFixture(t)
	// "/x" in user settings is relative to the config folder, not the project.
	user := Rule{Value: ParseRule("Read(/a.txt)"), Behavior: Deny, Source: SourceUser, Root: f.home}
	pc := mustNew(t, Config{Cwd: f.proj, Home: f.home, Rules: []Rule{user}})
	if d := pc.CheckRead(context.Background(), "a.txt"); d.Behavior != Allow {
		t.Fatalf("user-settings /a.txt must not cover the project's a.txt: %s", d.Behavior)
	}
	proj := Rule{Value: ParseRule("Read(/a.txt)"), Behavior: Deny, Source: SourceProject}
	pc = mustNew(t, Config{Cwd: f.proj, Home: f.home, Rules: []Rule{proj}})
	if d := pc.CheckRead(context.Background(), "a.txt"); d.Behavior != Deny {
		t.Fatalf("project-settings /a.txt covers the project's a.txt: %s", d.Behavior)
	}
	if d := pc.CheckRead(context.Background(), "deep/a.txt"); d.Behavior == Deny {
		t.Fatal("an anchored pattern must not match at depth")
	}
	// Bare patterns follow the current directory.
	bare := Rule{Value: ParseRule("Read(main.go)"), Behavior: Deny, Source: SourceProject}
	pc = mustNew(t, Config{Cwd: f.proj, Home: f.home, Rules: []Rule{bare}}).WithCwd(filepath.Join(f.proj, "src"))
	if d := pc.CheckRead(context.Background(), "main.go"); d.Behavior != Deny {
		t.Fatalf("bare pattern relative to the current cwd: %s", d.Behavior)
	}
	// After a cd into src, a deny of ./.env still covers the project's .env.
	dotenv := Rule{Value: ParseRule("Read(./.env)"), Behavior: Deny, Source: SourceProject}
	pc = mustNew(t, Config{Cwd: f.proj, Home: f.home, Rules: []Rule{dotenv}}).WithCwd(filepath.Join(f.proj, "src"))
	if d := pc.CheckRead(context.Background(), filepath.Join(f.proj, ".env")); d.Behavior != Deny {
		t.Fatalf("deny rules also match from the original working directory: %s", d.Behavior)
	}
	// Allow rules do not widen that way.
	allowX := Rule{Value: ParseRule("Edit(x.txt)"), Behavior: Allow, Source: SourceProject}
	pc = mustNew(t, Config{Cwd: f.proj, Home: f.home, Rules: []Rule{allowX}}).WithCwd(filepath.Join(f.proj, "src"))
	if d := pc.CheckWrite(context.Background(), filepath.Join(f.proj, "x.txt")); d.Behavior != Ask {
		t.Fatalf("an allow rule relative to src must not cover the project root's x.txt: %s", d.Behavior)
	}
}
