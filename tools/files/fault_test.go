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
	goleak.VerifyTestMain(m)
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
			})
		}
	}
}
