package bash

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestFindGitBash runs the lookup over a fake file system and environment: the variable first
// (and an error when it names nothing), then Program Files, then the git.exe on PATH.
func TestFindGitBash(t *testing.T) {
	const pfBash = `C:\Program Files\Git\bin\bash.exe`
	for _, tt := range []struct {
		name  string
		env   map[string]string
		files []string
		git   string // where git.exe is on PATH, "" for nowhere
		want  string
		err   []string // fragments of the error
	}{
		{name: "the variable", env: map[string]string{GitBashVar: `D:\tools\Git\bin\bash.exe`, "ProgramFiles": `C:\Program Files`},
			files: []string{`D:\tools\Git\bin\bash.exe`, pfBash}, want: `D:\tools\Git\bin\bash.exe`},
		{name: "the variable naming nothing is an error", env: map[string]string{GitBashVar: `D:\nope\bash.exe`, "ProgramFiles": `C:\Program Files`},
			files: []string{pfBash}, err: []string{GitBashVar + ` is set to D:\nope\bash.exe, which is not a file`, "https://git-scm.com/downloads/win"}},
		{name: "Program Files", env: map[string]string{"ProgramFiles": `C:\Program Files`}, files: []string{pfBash}, want: pfBash},
		{name: "Program Files with a trailing backslash", env: map[string]string{"ProgramFiles": `C:\Program Files\`}, files: []string{pfBash}, want: pfBash},
		{name: "beside git.exe on PATH", env: map[string]string{"ProgramFiles": `C:\Program Files`},
			files: []string{`E:\PortableGit\bin\bash.exe`}, git: `E:\PortableGit\cmd\git.exe`, want: `E:\PortableGit\bin\bash.exe`},
		{name: "Program Files before PATH", env: map[string]string{"ProgramFiles": `C:\Program Files`},
			files: []string{pfBash, `E:\PortableGit\bin\bash.exe`}, git: `E:\PortableGit\cmd\git.exe`, want: pfBash},
		{name: "nothing", env: map[string]string{"ProgramFiles": `C:\Program Files`}, git: `E:\PortableGit\cmd\git.exe`,
			err: []string{"Git Bash, which was not found", pfBash, `E:\PortableGit\bin\bash.exe`, "install Git for Windows (https://git-scm.com/downloads/win)", "set " + GitBashVar}},
		{name: "nothing and no environment", err: []string{"which was not found:", GitBashVar}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FindGitBash(GitBashLookup{
				Getenv: func(k string) string { return tt.env[k] },
				IsFile: func(p string) bool {
					for _, f := range tt.files {
						if f == p {
							return true
						}
					}
					return false
				},
				LookPath: func(name string) (string, error) {
					if name != "git.exe" || tt.git == "" {
						return "", exec.ErrNotFound
					}
					return tt.git, nil
				},
			})
			if got != tt.want {
				t.Errorf("FindGitBash = %q, %v; want %q", got, err, tt.want)
			}
			if len(tt.err) == 0 {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			var ge *GitBashError
			if !errors.As(err, &ge) {
				t.Fatalf("err = %v, want a *GitBashError", err)
			}
			for _, f := range tt.err {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q does not say %q", err, f)
				}
			}
		})
	}
}
