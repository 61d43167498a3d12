package tui

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Limits of @path completion: it walks the project, not the disk.
const (
	completeMaxFiles = 5000
	completeMaxDepth = 6
	completeShown    = 5
)

// skipDirs are never offered nor walked into.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true, "vendor": true}

// completePath completes the @path at the end of the input against the project's files. It
// returns the new input and, when several files match, the candidates to show.
func completePath(input, cwd string) (string, []string) {
	start := strings.LastIndexAny(input, " \n\t") + 1
	word := input[start:]
	if !strings.HasPrefix(word, "@") || cwd == "" {
		return input, nil
	}
	prefix := word[1:]
	var matches []string
	seen := 0
	filepath.WalkDir(cwd, func(p string, d fs.DirEntry, err error) error {
		if err != nil || seen >= completeMaxFiles {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(cwd, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() && (skipDirs[d.Name()] || strings.Count(rel, string(filepath.Separator)) >= completeMaxDepth) {
			return filepath.SkipDir
		}
		seen++
		if d.IsDir() {
			rel += string(filepath.Separator)
		}
		if strings.HasPrefix(strings.ToLower(rel), strings.ToLower(prefix)) {
			matches = append(matches, rel)
		}
		return nil
	})
	if len(matches) == 0 {
		return input, nil
	}
	sort.Strings(matches)
	if len(matches) == 1 {
		return input[:start] + "@" + matches[0], nil
	}
	common := matches[0]
	for _, m := range matches[1:] {
		for !strings.HasPrefix(strings.ToLower(m), strings.ToLower(common)) {
			common = common[:len(common)-1]
		}
	}
	shown := matches
	if len(shown) > completeShown {
		shown = append(shown[:completeShown:completeShown], "…")
	}
	if len(common) > len(prefix) {
		return input[:start] + "@" + common, shown
	}
	return input, shown
}
