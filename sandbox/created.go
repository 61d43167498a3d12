package sandbox

import (
	"fmt"
	"slices"
)

// placeholders is implemented by a backend that puts stand-ins on the host where protected
// paths are missing (bubblewrap binds over them); they are not the command's doing.
type placeholders interface {
	Placeholder(path string) bool
}

// createdProtected is the check after a command: protected paths that were missing when it
// started (spec.MustNotCreate) and exist now, and repositories that appeared below a working
// directory, whose hooks and config nothing protected while the command ran. The backends
// should have made the first impossible; the second they cannot prevent (a command may run
// `git init sub`). What is found stays where it is: it may be what the user asked for, and
// removing it could lose work; the report says what to inspect, and the next command's spec
// keeps it read-only. Call it after the backend's cleanup.
func (s *Sandbox) createdProtected(spec *Spec) []string {
	ph, _ := s.backend.(placeholders)
	appeared := func(p string) bool {
		return exists(p) && (ph == nil || !ph.Placeholder(p))
	}
	var out []string
	for _, p := range spec.MustNotCreate {
		if appeared(p) {
			out = append(out, fmt.Sprintf("file system: the command created the protected path %s, which runs code outside the sandbox later (a hook, shell or tool configuration); inspect it before running anything there", p))
		}
	}
	for _, wd := range s.cfg.WorkingDirs {
		repos, _ := findRepos(resolve(wd), maxRepoWalk)
		for _, g := range repos {
			if !slices.Contains(spec.repos, g) && appeared(g) {
				out = append(out, fmt.Sprintf("file system: the command created the git repository %s; its hooks and config were not protected while the command ran: inspect %s/hooks and %s/config before running git there", g, g, g))
			}
		}
	}
	return out
}
