//go:build linux

package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/bwrap"
	"github.com/reinsdev/reins/sandbox/landlock"
)

// BenchmarkCommand measures one command per iteration, unconfined and under each backend that
// works here: `true` shows the fixed cost of a sandbox, `go build` of a small module the cost
// for real work. bench/sandbox.sh prints the medians.
func BenchmarkCommand(b *testing.B) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("go is not on PATH")
	}
	proj := filepath.Join(b.TempDir(), "mod")
	os.MkdirAll(filepath.Join(proj, "pkg"), 0o755)
	os.WriteFile(filepath.Join(proj, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "pkg", "p.go"), []byte("package pkg\n\nfunc Add(a, b int) int { return a + b }\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/m/pkg\"\n)\n\nfunc main() { fmt.Println(pkg.Add(1, 2)) }\n"), 0o644)
	exe, _ := os.Executable()
	dirs, files := permission.ProtectedNames()

	type backend struct {
		name string
		b    sandbox.Backend
	}
	var backends []backend
	if _, err := exec.LookPath("bwrap"); err == nil {
		backends = append(backends, backend{"bubblewrap", &bwrap.Backend{}})
	}
	if v, err := landlock.ABI(); err == nil && v >= landlock.MinABI {
		backends = append(backends, backend{"landlock", &landlock.Backend{}})
	}
	commands := []struct{ name, script string }{
		{"true", "true"},
		{"gobuild", goBin + " build -o \"$TMPDIR/out\" ."},
	}
	// One build cache for every variant, so that each measures a warm build.
	gocache := b.TempDir()
	for _, bk := range append([]backend{{name: "none"}}, backends...) {
		var sb *sandbox.Sandbox
		tmp := b.TempDir()
		if bk.b != nil {
			var err error
			sb, err = sandbox.New(context.Background(), sandbox.Config{WorkingDirs: []string{proj}, TempDir: tmp,
				AllowWrite:    []sandbox.Path{{Path: gocache, Origin: "benchmark"}},
				ProtectedDirs: dirs, ProtectedFiles: files, Helper: exe, Backends: []sandbox.Backend{bk.b}})
			if err != nil {
				b.Fatal(err)
			}
		}
		for _, c := range commands {
			run := func() {
				cmd := exec.Command("/bin/bash", "-c", c.script)
				cmd.Dir = proj
				cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GOCACHE="+gocache, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
				if sb != nil {
					finish, err := sb.Wrap(cmd, c.script, nil, nil)
					if err != nil {
						b.Fatal(err)
					}
					defer finish("")
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%s under %s: %v\n%s", c.script, bk.name, err, out)
				}
			}
			run() // warm the build cache
			b.Run(bk.name+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					run()
				}
			})
		}
		if sb != nil {
			sb.Close()
		}
	}
}
