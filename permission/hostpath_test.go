package permission

import "path/filepath"

// hostAbs is the Unix-style absolute path p ("/proj/x") as an absolute path of this system:
// p itself on Unix, on the C: drive on Windows (C:\proj\x), for fixtures that name paths
// without touching them.
func hostAbs(p string) string {
	if filepath.Separator == '/' {
		return p
	}
	return "C:" + filepath.FromSlash(p)
}
