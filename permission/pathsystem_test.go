package permission

import (
	"runtime"
	"testing"
)

// Each system's naming rules, through the same functions, with the table passed explicitly:
// these run on every system (and under wine for Windows' own).
func TestPathSystemCanonical(t *testing.T) {
	for _, tt := range []struct {
		sys  *PathSystem
		a, b string
		same bool
	}{
		{&Darwin, "/Users/ana/proj/.GIT/hooks", "/Users/ana/proj/.git/hooks", true},
		{&Darwin, "/Users/ana/.ClAuDe/settings.json", "/Users/ana/.claude/settings.json", true},
		{&Darwin, "/private/var/folders/x/T/f", "/var/folders/x/T/f", true},
		{&Darwin, "/private/tmp/x", "/tmp/x", true},
		{&Darwin, "/private/etc/hosts", "/etc/hosts", true},
		{&Darwin, "/private/tmpx", "/tmpx", false},
		{&Darwin, "/Users/ana/.env.", "/Users/ana/.env", false},
		{&Linux, "/home/ana/.GIT/hooks", "/home/ana/.git/hooks", false},
		{&Linux, "/private/tmp/x", "/tmp/x", false},
		{&Windows, `C:\Users\Ana\proj\.env`, `c:/users/ana/proj/.env`, true},
		{&Windows, `C:\proj\.env::$DATA`, `C:\proj\.env`, true},
		{&Windows, `C:\proj\.env.`, `C:\proj\.env`, true},
		{&Windows, `C:\proj\.env. . `, `C:\proj\.env`, true},
		{&Windows, `C:\proj\.GIT\hooks\pre-commit`, `c:\proj\.git\hooks\pre-commit`, true},
		{&Windows, `C:\proj\.env`, `D:\proj\.env`, false},
		{&Windows, `\\server\share\x`, `//SERVER/share/x`, true},
	} {
		if got := tt.sys.Same(tt.a, tt.b); got != tt.same {
			t.Errorf("%s: Same(%q, %q) = %v, want %v (%q, %q)", tt.sys.Name, tt.a, tt.b, got, tt.same, tt.sys.Canonical(tt.a), tt.sys.Canonical(tt.b))
		}
	}
}

func TestPathSystemSuspicious(t *testing.T) {
	for _, tt := range []struct {
		sys     *PathSystem
		p       string
		suspect bool
	}{
		{&Windows, `C:\proj\file.txt:stream`, true},
		{&Windows, `C:\proj\.env::$DATA`, false}, // the file itself: Canonical maps it to .env
		{&Windows, `C:\proj\.env`, false},
		{&Windows, `C:\PROGRA~1\x`, true},
		{&Windows, `C:\proj\.claude\SETTIN~1.JSO`, true},
		{&Windows, `C:\proj\NUL`, true},
		{&Windows, `C:\proj\nul.txt`, true},
		{&Windows, `C:\proj\CON`, true},
		{&Windows, `C:\proj\com1.log`, true},
		{&Windows, `C:\proj\LPT1`, true},
		{&Windows, `C:\proj\console.txt`, false},
		{&Windows, `C:\proj\null`, false},
		{&Darwin, "/Users/ana/file.txt:stream", false},
		{&Linux, "/home/ana/NUL", false},
	} {
		if got := tt.sys.Suspicious(tt.p) != ""; got != tt.suspect {
			t.Errorf("%s: Suspicious(%q) = %q, want suspect=%v", tt.sys.Name, tt.p, tt.sys.Suspicious(tt.p), tt.suspect)
		}
	}
}

// The protected-path check goes through the system's names: on Windows a stream suffix or
// trailing dot does not hide a protected name; every system folds case (the engine's own
// stricter rule).
func TestProtectedPathOnEachSystem(t *testing.T) {
	c := &Context{}
	for _, tt := range []struct {
		sys  *PathSystem
		p    string
		want bool
	}{
		{&Darwin, "/Users/ana/proj/.GIT/hooks/pre-commit", true},
		{&Darwin, "/Users/ana/proj/.ClAuDe/settings.json", true},
		{&Windows, `C:\proj\.envrc.`, true},
		{&Windows, `C:\proj\.envrc::$DATA`, true},
		{&Windows, `C:\proj\.git::$DATA\hooks\x`, true},
		{&Windows, `C:\proj\src\main.go`, false},
		{&Linux, "/home/ana/proj/.GIT/hooks/x", true},
		{&Linux, "/home/ana/proj/src/main.go", false},
	} {
		if got := c.protectedPathOn(tt.sys, tt.p) != ""; got != tt.want {
			t.Errorf("%s: protected(%q) = %v, want %v", tt.sys.Name, tt.p, got, tt.want)
		}
	}
}

func TestHostSystemMatchesGOOS(t *testing.T) {
	want := map[string]string{"darwin": "darwin", "windows": "windows", "linux": "linux"}[runtime.GOOS]
	if want != "" && HostSystem().Name != want {
		t.Errorf("HostSystem = %s on %s", HostSystem().Name, runtime.GOOS)
	}
}

func TestSensitivePathsUnderHome(t *testing.T) {
	ps := Darwin.SensitivePaths("/Users/ana")
	found := false
	for _, p := range ps {
		if p == "/Users/ana/Library/Keychains" {
			found = true
		}
	}
	if runtime.GOOS != "windows" && !found {
		t.Errorf("Darwin.SensitivePaths lacks ~/Library/Keychains: %q", ps)
	}
}
