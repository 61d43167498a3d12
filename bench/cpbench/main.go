// Command cpbench measures what checkpoints cost a Bash command: in a repository of -files
// files it runs a mix of everyday commands through sh, each -rounds times, alone and with the
// capture the call pipeline makes (checkpoint/capture: what the analysis decides to capture,
// the scans before and after), and prints the median of each and of the mix.
//
//	go run ./bench/cpbench [-files 20000] [-rounds 15]
//	bench/checkpoint.sh
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/checkpoint/capture"
	"github.com/reinsdev/reins/permission"
)

// mix is the command mix: read-only commands (nothing captured), commands whose targets the
// analysis names, and commands it cannot see into (the working directory is scanned).
var mix = []string{
	"ls src",
	"cat src/d0/f0.go",
	"grep -rn handler src/d1",
	"git status --short",
	"echo x > out.txt",
	"touch src/d2/new.go",
	"rm -rf build",
	"./gen.sh",
	"sort -o sorted.txt src/d0/f0.go",
}

func main() {
	files := flag.Int("files", 20000, "files in the repository")
	rounds := flag.Int("rounds", 15, "runs of each command, each way")
	flag.Parse()
	if err := run(*files, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "cpbench:", err)
		os.Exit(1)
	}
}

func run(files, rounds int) error {
	base, err := os.MkdirTemp("", "cpbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	base, _ = filepath.EvalSymlinks(base)
	repo := filepath.Join(base, "repo")
	if err := makeRepo(repo, files); err != nil {
		return err
	}
	pc, err := permission.New(permission.Config{Cwd: repo, Home: base})
	if err != nil {
		return err
	}
	store, err := checkpoint.Open(filepath.Join(base, "store"), []string{repo}, checkpoint.Limits{})
	if err != nil {
		return err
	}
	if err := store.Begin("m1", "bench"); err != nil {
		return err
	}
	ctx := context.Background()
	// The first capture of the whole tree hashes every file; later ones trust the stat cache.
	t0 := time.Now()
	p, err := store.Capture(ctx, "", checkpoint.Scope{All: true})
	if err != nil {
		return err
	}
	_ = p.Done(ctx)
	fmt.Printf("first capture of the whole tree (%d files, every file hashed): %v\n", files, time.Since(t0).Round(time.Millisecond))
	fmt.Printf("%-34s %10s %10s %10s\n", "command", "plain", "captured", "overhead")
	var plainAll, capAll []time.Duration
	for _, cmd := range mix {
		var plain, captured []time.Duration
		for range rounds {
			// Alternate, so that a burst of load on a shared machine spoils both sides alike.
			d, err := timed(repo, cmd, nil)
			if err != nil {
				return err
			}
			plain = append(plain, d)
			d, err = timed(repo, cmd, func() (func(), error) { return captureFor(ctx, store, pc, cmd) })
			if err != nil {
				return err
			}
			captured = append(captured, d)
		}
		mp, mc := median(plain), median(captured)
		plainAll, capAll = append(plainAll, plain...), append(capAll, captured...)
		fmt.Printf("%-34s %10v %10v %10v\n", cmd, mp.Round(10*time.Microsecond), mc.Round(10*time.Microsecond), (mc - mp).Round(10*time.Microsecond))
	}
	mp, mc := median(plainAll), median(capAll)
	fmt.Printf("%-34s %10v %10v %10v\n", "median over the mix", mp.Round(10*time.Microsecond), mc.Round(10*time.Microsecond), (mc - mp).Round(10*time.Microsecond))
	return nil
}

// captureFor does what the pipeline's capture does before a Bash call; the returned func is
// what it does after.
func captureFor(ctx context.Context, store *checkpoint.Store, pc *permission.Context, cmd string) (func(), error) {
	scope, _, ok := capture.ScopeOf(ctx, "Bash", pc, map[string]string{"command": cmd})
	if !ok {
		return func() {}, nil
	}
	p, err := store.Capture(ctx, "", scope)
	if err != nil {
		return nil, err
	}
	return func() { _ = p.Done(ctx) }, nil
}

// timed runs cmd in repo (after putting back what the mix removes, untimed) and returns how
// long it took, with around's before and after.
func timed(repo, cmd string, around func() (func(), error)) (time.Duration, error) {
	if err := makeFiles(filepath.Join(repo, "build"), 50); err != nil {
		return 0, err
	}
	start := time.Now()
	after := func() {}
	if around != nil {
		var err error
		if after, err = around(); err != nil {
			return 0, err
		}
	}
	c := exec.Command("sh", "-c", cmd)
	c.Dir = repo
	if out, err := c.CombinedOutput(); err != nil && !strings.HasPrefix(cmd, "grep") {
		return 0, fmt.Errorf("%s: %v: %s", cmd, err, out)
	}
	after()
	return time.Since(start), nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// makeRepo writes n files of about 2 KB in 100 folders of src, a git repository, an ignored
// node_modules share and a script that writes a file.
func makeRepo(repo string, n int) error {
	perDir := max(n/100, 1)
	for d := 0; d*perDir < n; d++ {
		if err := makeFiles(filepath.Join(repo, "src", fmt.Sprintf("d%d", d)), min(perDir, n-d*perDir)); err != nil {
			return err
		}
	}
	script := "#!/bin/sh\necho generated > gen.txt\n"
	if err := os.WriteFile(filepath.Join(repo, "gen.sh"), []byte(script), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		return err
	}
	if git, err := exec.LookPath("git"); err == nil {
		c := exec.Command(git, "init", "-q")
		c.Dir = repo
		_ = c.Run()
	}
	return nil
}

func makeFiles(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	body := strings.Repeat("func handler(w io.Writer) error { return nil }\n", 44)
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}
