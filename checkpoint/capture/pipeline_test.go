package capture

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
	"github.com/reinsdev/reins/tools/bash"
)

// yes answers every ask with allow: the test is about what runs, not whether.
type yes struct{}

func (yes) Ask(_ context.Context, req permission.AskRequest) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow}, nil
}

// snapshot is every file below dir with its content and mode.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		info, _ := d.Info()
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = info.Mode().String() + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRealBashCommandsAreRewound runs real Bash commands through the call pipeline under a
// turn's capturer — one the analysis names the targets of, ones it cannot see into (a
// variable, a script, git) — and rewinds: the tree is back, ignored files included.
func TestRealBashCommandsAreRewound(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(root, "proj")
	for p, c := range map[string]string{"src/main.go": "package main\n", "src/.env": "TOKEN=1\n", "README": "read me\n", ".gitignore": ".env\n"} {
		os.MkdirAll(filepath.Join(proj, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(proj, p), []byte(c), 0o644)
	}
	commands := []string{"rm -rf src", `D=README; echo changed > "$D"`, "printf 'x' > new.txt && chmod 755 new.txt"}
	if git, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x"}} {
			c := exec.Command(git, args...)
			c.Dir = proj
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
		commands = append(commands, "echo drift >> README && git checkout -- . && git clean -fdxq")
	} else {
		t.Log("git is not installed: the git commands are not run")
	}
	before := snapshot(t, proj)

	pc, err := permission.New(permission.Config{Cwd: proj, Home: filepath.Join(root, "home")})
	if err != nil {
		t.Fatal(err)
	}
	sh := bash.New(bash.Options{Cwd: proj, Env: []string{"HOME=" + filepath.Join(root, "home"), "PATH=" + os.Getenv("PATH")},
		Permissions: func() *permission.Context { return pc }})
	t.Cleanup(func() { sh.Close() })
	store, err := checkpoint.Open(filepath.Join(root, "store"), []string{proj}, checkpoint.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Begin("m1", "go"); err != nil {
		t.Fatal(err)
	}
	ctx := toolcall.WithCapturer(t.Context(), Turn{Store: store, Point: "m1"})
	p := toolcall.Pipeline{Asker: yes{}}
	for _, cmd := range commands {
		raw, _ := json.Marshal(map[string]string{"command": cmd})
		in, err := toolcall.Decode(sh.BashTool(), raw)
		if err != nil {
			t.Fatal(err)
		}
		out := p.Run(ctx, toolcall.Call{Tool: sh.BashTool(), ID: cmd, Input: in, Raw: raw, Permissions: pc, Env: &tool.Env{Permissions: func() *permission.Context { return pc }}})
		if out.Stage != toolcall.Done || out.Result.IsError {
			t.Fatalf("%s: stage %d %q %+v", cmd, out.Stage, out.Failure, out.Result)
		}
	}
	if reflect.DeepEqual(snapshot(t, proj), before) {
		t.Fatal("the commands changed nothing")
	}
	res, err := store.Rewind(context.Background(), "m1", checkpoint.RewindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, proj); !reflect.DeepEqual(got, before) {
		t.Errorf("after the rewind:\n got %v\nwant %v\n(%+v)", got, before, res)
	}
}
