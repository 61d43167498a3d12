//go:build !windows

package permission

import "path/filepath"

// evalLinks resolves every symlink in p (filepath.EvalSymlinks).
func evalLinks(p string) (string, error) { return filepath.EvalSymlinks(p) }
