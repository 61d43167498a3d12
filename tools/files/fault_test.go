package files

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

func TestMain(m *testing.M) {
	if op := os.Getenv("REINS_FILES_FAULT_OP"); op != "" {
		// Re-executed by a fault test: write, and stop at the hook until killed.
		faultHelper(op, os.Getenv("REINS_FILES_FAULT_PATH"), os.Getenv("REINS_FILES_FAULT_STAGE"))
		os.Exit(3) // only reached if the hook was never hit
	}
	// Journals of in-place writes go to the cache folder: a temporary one, which the
	// re-executed writers inherit.
	cache, err := os.MkdirTemp("", "reins-files-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(cache)
		os.Exit(code)
	}))
}

// faultHelper reads path, then edits or writes it; at stage it reports and waits to be killed.
func faultHelper(op, path, stage string) {
	dir := filepath.Dir(path)
	pc, err := permission.New(permission.Config{Cwd: dir, Home: dir})
	if err != nil {
		panic(err)
	}
	env := &tool.Env{Permissions: func() *permission.Context { return pc }, Files: tool.NewFileState()}
	opts := Options{MaxReadBytes: 1 << 30, MaxReadTokens: 1 << 30, hook: func(s string) {
		if s == stage {
			fmt.Println("STOPPED-AT", s)
			os.Stdout.Sync()
			time.Sleep(time.Hour) // until killed
		}
	}}
	ctx := context.Background()
	callTool := func(tl tool.Tool, input any) {
		raw, _ := json.Marshal(input)
		in, err := tl.Decode(raw)
		if err == nil {
			if fail := tl.ValidateInput(ctx, in, env); fail != nil {
				err = errors.New(fail.Message)
			}
		}
		if err == nil {
			var res tool.Result
			res, err = tl.Call(ctx, in, env)
			if err == nil && res.IsError {
				err = errors.New(res.TextOf())
			}
		}
		if err != nil {
			fmt.Println("ERROR", err)
			os.Exit(2)
		}
	}
	callTool(NewRead(opts), obj{"file_path": path})
	switch op {
	case "edit":
		callTool(NewEdit(opts), obj{"file_path": path, "old_string": "MARKER", "new_string": "REPLACED-" + strings.Repeat("n", 1<<20)})
	case "write":
		callTool(NewWrite(opts), obj{"file_path": path, "content": strings.Repeat("new content\n", 200000)})
	}
}

// TestKilledWriterLeavesOldFile kills Edit and Write with SIGKILL in the middle of writing
// the new content and just before the rename, and checks that the file still holds exactly
// its old content.
func TestKilledWriterLeavesOldFile(t *testing.T) {
	for _, op := range []string{"edit", "write"} {
		for _, stage := range []string{"mid-write", "before-rename"} {
			t.Run(op+"/"+stage, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "victim.txt")
				old := strings.Repeat("old line of text\n", 100000) + "MARKER\n"
				if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
					t.Fatal(err)
				}
				killAt(t, op, path, stage)
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != old {
					t.Fatalf("the file changed: %d bytes, want the old %d", len(got), len(old))
				}
				// The half-written temporary file is the evidence that the kill hit a write.
				tmps, _ := filepath.Glob(filepath.Join(dir, ".victim.txt.reins-*.tmp"))
				if len(tmps) != 1 {
					t.Fatalf("temporary files %v", tmps)
				}
				if fi, _ := os.Stat(tmps[0]); stage == "mid-write" && (fi.Size() == 0 || fi.Size() >= int64(len(old))) {
					t.Errorf("temporary file has %d bytes; expected about half of the new content", fi.Size())
				}
				// The next write in that folder removes the dead writer's temporary file.
				other := filepath.Join(dir, "other.txt")
				tg, err := writeTarget(other, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := writeAtomic(tg, []byte("x\n"), Options{}); err != nil {
					t.Fatal(err)
				}
				if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.reins-*.tmp")); len(tmps) != 0 {
					t.Errorf("a dead writer's temporary files are left: %v", tmps)
				}
			})
		}
	}
}

// TestKilledInPlaceWriterIsCompleted kills Edit and Write of a file with two hard links (written
// in place) half-way, and checks that the next write to either name first completes the
// interrupted one from its journal: both names then read the whole new content.
func TestKilledInPlaceWriterIsCompleted(t *testing.T) {
	for _, op := range []string{"edit", "write"} {
		t.Run(op, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "victim.txt")
			old := strings.Repeat("old line of text\n", 100000) + "MARKER\n"
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			other := filepath.Join(dir, "twin.txt")
			if err := os.Link(path, other); err != nil {
				t.Skipf("no hard links here: %v", err)
			}
			want := strings.Repeat("new content\n", 200000)
			if op == "edit" {
				want = strings.Replace(old, "MARKER", "REPLACED-"+strings.Repeat("n", 1<<20), 1)
			}
			killAt(t, op, path, "mid-write")
			journalDir := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "reins", "journal")
			if got, _ := os.ReadFile(path); string(got) == want {
				t.Fatal("the kill did not land before the in-place write ended")
			}
			// The journal is the evidence that the kill hit an in-place write.
			if journals, _ := filepath.Glob(filepath.Join(journalDir, "*.journal")); len(journals) != 1 {
				t.Fatalf("journals after the kill: %v", journals)
			}
			if _, err := writeTarget(other, Options{}); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{path, other} {
				if got, _ := os.ReadFile(p); string(got) != want {
					t.Errorf("%s holds %d bytes after the next write, want the new %d", p, len(got), len(want))
				}
			}
			if journals, _ := filepath.Glob(filepath.Join(journalDir, "*")); len(journals) != 0 {
				t.Errorf("journals left: %v", journals)
			}
			if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmps) != 0 {
				t.Errorf("temporary files in the project: %v", tmps)
			}
		})
	}
}

// killAt runs op (edit or write) on path in a child process and kills it with SIGKILL at stage.
func killAt(t *testing.T, op, path, stage string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "REINS_FILES_FAULT_OP="+op, "REINS_FILES_FAULT_PATH="+path, "REINS_FILES_FAULT_STAGE="+stage)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if s != "STOPPED-AT "+stage+"\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper said %q", s)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("helper never reached the hook")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	cmd.Wait()
}
