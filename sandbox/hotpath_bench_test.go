package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchTrees builds the two projects of bench/sandbox.sh: five files, and 6,000 folders of one
// file each, both git repositories.
func benchTrees(b *testing.B) map[string]string {
	b.Helper()
	root := b.TempDir()
	small, big := filepath.Join(root, "small"), filepath.Join(root, "big")
	for _, f := range []string{"README.md", "go.mod", "main.go", "src/a.go", "src/b.go"} {
		os.MkdirAll(filepath.Dir(filepath.Join(small, f)), 0o755)
		os.WriteFile(filepath.Join(small, f), []byte("x\n"), 0o644)
	}
	for i := range 6000 {
		d := filepath.Join(big, fmt.Sprintf("p%d/q%d/r%d", i/300, i/20%15, i%20))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "f.go"), []byte("package x\n"), 0o644)
	}
	for _, p := range []string{small, big} {
		for _, d := range []string{".git/hooks", ".git/objects", ".git/refs"} {
			os.MkdirAll(filepath.Join(p, d), 0o755)
		}
		os.WriteFile(filepath.Join(p, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		os.WriteFile(filepath.Join(p, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644)
		for _, h := range []string{"pre-commit.sample", "pre-push.sample", "commit-msg.sample"} {
			os.WriteFile(filepath.Join(p, ".git", "hooks", h), []byte("#!/bin/sh\n"), 0o755)
		}
	}
	return map[string]string{"small": small, "big": big}
}

func benchSandbox(b *testing.B, proj string) *Sandbox {
	dirs := []string{".git", ".vscode", ".idea", ".claude", ".reins", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn"}
	files := []string{".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".profile", ".mcp.json", ".envrc", ".npmrc",
		".yarnrc", ".bazelrc", ".pre-commit-config.yaml", "lefthook.yml", "pyrightconfig.json"}
	s := &Sandbox{cfg: Config{WorkingDirs: []string{proj}, TempDir: b.TempDir(), CacheDir: b.TempDir(), QuarantineDir: b.TempDir(),
		ProtectedDirs: dirs, ProtectedFiles: files}}
	s.searchRepos()
	return s
}

// BenchmarkSpec is what every sandboxed command pays before it starts: the spec (the top of
// the project, the repository's hooks and config) and the snapshot of the protected paths.
func BenchmarkSpec(b *testing.B) {
	for name, proj := range benchTrees(b) {
		s := benchSandbox(b, proj)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				sp := s.buildSpec(nil, nil)
				s.guard(&sp)
			}
		})
	}
}

// BenchmarkCheck is the check after a command that changed nothing: the protected paths
// compared with their snapshot, the missing ones looked for, and the bounded search for
// nested repositories.
func BenchmarkCheck(b *testing.B) {
	for name, proj := range benchTrees(b) {
		s := benchSandbox(b, proj)
		sp := s.buildSpec(nil, nil)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				g := s.guard(&sp)
				if lines := g.check(); len(lines) > 0 {
					b.Fatal(lines)
				}
			}
		})
	}
}
