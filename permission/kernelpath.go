package permission

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ResolveAsKernel returns the file the kernel reaches for the path p, taken relative to the
// directory dir when it is relative: component by component, following every symlink it
// meets (the last component's too, as open does), a relative symlink target read from the
// link's own directory, and ".." meaning the parent of what the walk has reached so far —
// after a symlink, the parent of its target, where filepath.Clean would take the link's
// parent. dir is resolved too: a process's working directory is where its symlinks lead.
// From the first component that does not exist the rest is joined as written (the kernel
// stops there, or creates the last one). Chains are cut after maxSymlinkHops hops, and the
// walk then returns what it has reached, as the kernel's ELOOP leaves it.
//
// Paths written by a program the shell runs (cat link/../x) reach the kernel as written, so
// the Bash check needs this form besides the cleaned one; a path the file tools resolve
// themselves is cleaned before it is opened and has no other form.
//
// On Windows the path is the cleaned one: Win32 removes "." and ".." from a path as text
// before it follows any link (GetFullPathName), and the links it then meets are resolved by
// the checks' other forms.
func ResolveAsKernel(dir, p string) string {
	if runtime.GOOS == "windows" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	hops := 0
	start := "/"
	if !filepath.IsAbs(p) {
		start = filepath.Clean(dir)
		if r, err := filepath.EvalSymlinks(start); err == nil {
			start = r
		}
	}
	return walkAsKernel(start, p, &hops)
}

func walkAsKernel(cur, p string, hops *int) string {
	comps := strings.Split(p, "/")
	for i, c := range comps {
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, comps[i+1:]...)...)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if *hops++; err != nil || *hops > maxSymlinkHops {
			return filepath.Join(append([]string{next}, comps[i+1:]...)...)
		}
		base := cur // a relative target is read from the link's own directory
		if filepath.IsAbs(target) {
			base = "/"
		}
		cur = walkAsKernel(base, target, hops)
	}
	return cur
}

// HasDotDot reports whether a path as written holds a ".." component, the one a lexical
// clean and the kernel may read differently.
func HasDotDot(p string) bool {
	return p == ".." || strings.HasPrefix(p, "../") || strings.HasSuffix(p, "/..") || strings.Contains(p, "/../")
}
