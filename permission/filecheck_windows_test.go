package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ResolvePath with Windows' and Git Bash's path forms: a rooted path without a drive is never
// relative to the working directory.
func TestResolvePathOnWindows(t *testing.T) {
	pc := mustNew(t, Config{Cwd: `D:\work\proj`, Home: `C:\Users\ana`})
	for in, want := range map[string]string{
		"/c/Users/ana/.ssh/id_rsa": `C:\Users\ana\.ssh\id_rsa`,
		"/cygdrive/e/x":            `E:\x`,
		"/etc/hosts":               `D:\etc\hosts`,
		`\Windows\System32`:        `D:\Windows\System32`,
		"/":                        `D:\`,
		`~\.ssh\id_rsa`:            `C:\Users\ana\.ssh\id_rsa`,
		"~/.ssh/id_rsa":            `C:\Users\ana\.ssh\id_rsa`,
		"src/main.go":              `D:\work\proj\src\main.go`,
		`src\..\..\x`:              `D:\work\x`,
		`C:\x\..\y`:                `C:\y`,
		`c:/x`:                     `c:\x`,
	} {
		got, err := pc.ResolvePath(in)
		if err != nil || got != want {
			t.Errorf("ResolvePath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// The checks on Windows paths: rules in Claude Code's POSIX form (//c/...) and in drive form
// match, folders compare without case and across separators, and paths that look relative
// to a shell but are rooted stay outside the project.
func TestCheckOnWindows(t *testing.T) {
	f := newFixture(t)
	outside := slashPath(f.outside) // /c/users/.../outside
	drive := f.outside[:2]          // C:
	runReadCases(t, f, []readCase{
		{"POSIX-form deny", ModeDefault, rules(Deny, SourceUser, "Read("+rulePath(f.outside)+"/**)"), filepath.Join(f.outside, "o.txt"), Deny},
		{"drive-form deny", ModeDefault, rules(Deny, SourceUser, "Read("+f.outside+`\**)`), filepath.Join(f.outside, "o.txt"), Deny},
		{"drive-form deny with slashes", ModeDefault, rules(Deny, SourceUser, "Read("+filepath.ToSlash(f.outside)+"/o.txt)"), filepath.Join(f.outside, "o.txt"), Deny},
		{"drive-form allow", ModeDefault, rules(Allow, SourceUser, "Read("+f.outside+`\**)`), filepath.Join(f.outside, "o.txt"), Allow},
		{"Git Bash path outside asks", ModeDefault, nil, outside + "/o.txt", Ask},
		{"Git Bash path under a deny", ModeDefault, rules(Deny, SourceUser, "Read("+rulePath(f.outside)+"/**)"), outside + "/o.txt", Deny},
		{"Git Bash path inside", ModeDefault, nil, slashPath(f.proj) + "/a.txt", Allow},
		{"rooted path is not under the project", ModeDefault, nil, "/etc/hosts", Ask},
		{"backslash-rooted path is not under the project", ModeDefault, nil, `\Windows\win.ini`, Ask},
		{"other case of the project", ModeDefault, nil, strings.ToUpper(f.proj) + `\A.TXT`, Allow},
		{"forward slashes inside", ModeDefault, nil, filepath.ToSlash(f.proj) + "/src/main.go", Allow},
		{"deny matches across separators", ModeDefault, rules(Deny, SourceProject, "Read(src/**)"), `src\main.go`, Deny},
		{"deny of a nested name with backslashes", ModeDefault, rules(Deny, SourceProject, "Read(.env)"), `deep\x\.env`, Deny},
		{"alternate data stream asks", ModeDefault, nil, `a.txt:hidden`, Ask},
		{"device name asks", ModeDefault, nil, `src\NUL`, Ask},
		{"drive-relative path asks", ModeDefault, nil, drive + "o.txt", Ask},
		{"short name asks", ModeDefault, nil, `C:\PROGRA~1\x`, Ask},
	})
	runWriteCases(t, f, []writeCase{
		{"acceptEdits in the project through a Git Bash path", ModeAcceptEdits, nil, nil, slashPath(f.proj) + "/new.txt", Allow, ReasonMode},
		{"acceptEdits, rooted path outside", ModeAcceptEdits, nil, nil, "/Windows/x.dll", Ask, ReasonWorkingDir},
		{".git through backslashes", ModeAcceptEdits, nil, nil, `.git\config`, Ask, ReasonSafetyCheck},
		{".GIT::$DATA is .git", ModeAcceptEdits, nil, nil, `.GIT::$DATA\hooks\pre-commit`, Ask, ReasonSafetyCheck},
		{"drive-form Edit deny", ModeAcceptEdits, rules(Deny, SourceLocal, "Edit("+f.proj+`\src\**)`), nil, `src\new.txt`, Deny, ReasonRule},
	})
}

// No path is proven plain on Windows (the one-call proof is Unix's): every check resolves the
// path, which gives the name on disk for another spelling of it.
func TestNoPlainPathOnWindows(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "Dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "Dir", "File.txt"))
	ctx := WithStatCache(context.Background())
	for _, p := range []string{root, filepath.Join(root, "Dir"), filepath.Join(root, "Dir", "File.txt"), filepath.Join(root, "missing")} {
		if ok, _ := plainPath(ctx, p); ok {
			t.Errorf("plainPath(%s) = true on Windows", p)
		}
	}
	real, err := evalLinks(filepath.Join(root, "Dir", "File.txt"))
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "DIR", "file.TXT")
	forms := pathForms(ctx, other)
	found := false
	for _, f := range forms {
		found = found || f.path == real
	}
	if !found {
		t.Errorf("pathForms(%s) = %v, want the name on disk %s among them", other, forms, real)
	}
}
