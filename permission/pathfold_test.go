package permission

import "testing"

// The Windows path forms are pure functions of strings: their tables run on every system.

func TestWindowsSlashPath(t *testing.T) {
	for in, want := range map[string]string{
		`C:\Users\Ana\proj`: "/c/Users/Ana/proj",
		`c:\`:               "/c/",
		`D:`:                "/d",
		`C:/x/y`:            "/c/x/y",
		`\\server\share\x`:  "//server/share/x",
		`\\?\C:\x`:          "//?/C:/x",
		`rel\x`:             "rel/x",
		`C:rel`:             "C:rel", // drive-relative: not absolute, left alone
		`/already/posix`:    "/already/posix",
	} {
		if got := windowsSlashPath(in); got != want {
			t.Errorf("windowsSlashPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMsysPath(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"/c/Users/x", "C:/Users/x", true},
		{"/C/x", "C:/x", true},
		{"/c", "C:/", true},
		{"/c/", "C:/", true},
		{"/cygdrive/d/work", "D:/work", true},
		{"/etc/hosts", "", false},
		{"/cc/x", "", false},
		{"/1/x", "", false},
		{"c/x", "", false},
		{`\c\x`, "", false},
	} {
		got, ok := msysPath(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("msysPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWindowsRooted(t *testing.T) {
	for _, tt := range []struct {
		cwd, in, want string
		ok            bool
	}{
		{`D:\work\proj`, "/c/Users/x/.ssh/id_rsa", "C:/Users/x/.ssh/id_rsa", true},
		{`D:\work\proj`, "/etc/hosts", "D:/etc/hosts", true},
		{`D:\work\proj`, `\Windows\System32`, `D:\Windows\System32`, true},
		{`D:\work\proj`, "/", "D:/", true},
		{`\\server\share\proj`, "/etc/hosts", "/etc/hosts", true}, // no drive: the share's root is the system's business
		{`D:\work\proj`, "//server/share", "", false},
		{`D:\work\proj`, `\\server\share`, "", false},
		{`D:\work\proj`, "src/main.go", "", false},
		{`D:\work\proj`, `C:\x`, "", false},
		{`D:\work\proj`, "", "", false},
	} {
		got, ok := windowsRooted(tt.cwd, tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("windowsRooted(%q, %q) = %q, %v; want %q, %v", tt.cwd, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWindowsRuleContent(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{`C:\Users\x\secrets\**`, "//c/Users/x/secrets/**", true},
		{`c:/Users/x/.env`, "//c/Users/x/.env", true},
		{`D:\`, "//d/", true},
		{"//c/Users/x/**", "", false},
		{"src/**", "", false},
		{`C:x`, "", false},
		{"~/.ssh/**", "", false},
	} {
		got, ok := windowsRuleContent(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("windowsRuleContent(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// relUnder works on folded paths: a root ("/", or a Windows drive's "/c/") holds everything
// under it, and a sibling with a longer name is not inside.
func TestRelUnder(t *testing.T) {
	for _, tt := range []struct {
		base, p, rel string
		ok           bool
	}{
		{"/", "/etc/hosts", "etc/hosts", true},
		{"/c/", "/c/users/x", "users/x", true},
		{"/c/users", "/c/users/x", "x", true},
		{"/c/users", "/c/users", "", true},
		{"/c/users", "/c/users_evil/x", "", false},
		{"/c/", "/d/x", "", false},
		{"/proj", "/proj/src/a.go", "src/a.go", true},
	} {
		rel, ok := relUnder(tt.base, tt.p)
		if rel != tt.rel || ok != tt.ok {
			t.Errorf("relUnder(%q, %q) = %q, %v; want %q, %v", tt.base, tt.p, rel, ok, tt.rel, tt.ok)
		}
	}
}
