package permission

import (
	"path/filepath"
	"strings"
)

// foldPath is the form in which the engine compares paths and matches path rules: lower-cased
// on every system (as Claude Code does), with "/" separators. On Windows it is the POSIX form
// Claude Code writes rules in, the drive as the first element without its colon: C:\Users\x
// folds to /c/users/x, so that "//c/Users/x/**" is a rule for that folder, and a rule's
// pattern, which separates with "/", meets the path as it meets a Unix one.
func foldPath(p string) string {
	return strings.ToLower(slashPath(p))
}

// slashPath is p in the form rules are written in: p itself where "/" is the separator, the
// POSIX form of a Windows path elsewhere.
func slashPath(p string) string {
	if filepath.Separator == '/' {
		return p
	}
	return windowsSlashPath(p)
}

// windowsSlashPath turns a Windows path into its POSIX form: backslashes become slashes and a
// leading drive "C:" becomes "/c" (C:\x is /c/x, C:\ is /c/). UNC and device paths keep their
// leading "//" (the checks ask for them before any rule is consulted). It is a pure function of
// the string, so its tests run on every system.
func windowsSlashPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]) && (len(p) == 2 || p[2] == '/') {
		return "/" + string(p[0]|0x20) + p[2:]
	}
	return p
}

// msysPath turns a path as Git Bash writes it into a Windows one: "/c/x" and "/cygdrive/c/x"
// name C:\x. It reports false for any other path. Git Bash is the shell of the Bash tool on
// Windows (as in Claude Code), so a command's "/c/Users/x" must be checked as C:\Users\x, not
// as a folder named c under the working directory.
func msysPath(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/cygdrive/")
	if !ok {
		if !strings.HasPrefix(p, "/") {
			return "", false
		}
		rest = p[1:]
	}
	if len(rest) == 0 || !isASCIILetter(rest[0]) || (len(rest) > 1 && rest[1] != '/') {
		return "", false
	}
	return string(rest[0]&^0x20) + ":/" + strings.TrimPrefix(rest[1:], "/"), true
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// windowsRooted resolves p when it starts at a root but names no drive ("\x", "/x"), for a
// Windows process whose working directory is cwd: Git Bash's drive form ("/c/x", with forward
// slashes) names that drive, any other rooted path is on cwd's drive, as Windows takes it. It reports false for
// every other path (relative, drive-qualified, UNC). The result is not cleaned.
//
// Git Bash also mounts its own folders at "/" ("/usr", "/etc", "/tmp" are under the Git
// installation and the user's temporary folder); such a path is checked as the folder of that
// name on cwd's drive, outside the working directories as the real one is.
func windowsRooted(cwd, p string) (string, bool) {
	if p == "" || (p[0] != '/' && p[0] != '\\') {
		return "", false
	}
	if len(p) > 1 && (p[1] == '/' || p[1] == '\\') {
		return "", false // UNC or device path
	}
	if w, ok := msysPath(p); ok {
		return w, true
	}
	vol := ""
	if len(cwd) >= 2 && cwd[1] == ':' && isASCIILetter(cwd[0]) {
		vol = cwd[:2]
	}
	return vol + p, true
}

// windowsRuleContent is a Read or Edit rule's path written the Windows way, `C:\Users\x\**`
// or "C:/Users/x/**", as the rule Claude Code's form "//c/Users/x/**" writes. Read as a pattern
// it would be a relative path with backslash escapes that matches nothing: a deny rule
// written so on Windows would protect nothing. It reports false for every other content.
func windowsRuleContent(c string) (string, bool) {
	if len(c) < 3 || c[1] != ':' || !isASCIILetter(c[0]) || (c[2] != '\\' && c[2] != '/') {
		return "", false
	}
	return "/" + windowsSlashPath(c), true
}
