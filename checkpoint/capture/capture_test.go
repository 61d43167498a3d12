package capture

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/permission"
)

func TestScopeOf(t *testing.T) {
	cwd := t.TempDir()
	pc, err := permission.New(permission.Config{Cwd: cwd, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	at := func(rel ...string) checkpoint.Scope {
		var s checkpoint.Scope
		for _, r := range rel {
			s.Paths = append(s.Paths, filepath.Join(cwd, r))
		}
		return s
	}
	all := checkpoint.Scope{All: true}
	type bashIn struct {
		Command    string `json:"command"`
		Background bool   `json:"run_in_background,omitempty"`
	}
	tests := []struct {
		name   string
		tool   string
		input  any
		want   checkpoint.Scope
		ok, bg bool
	}{
		{"an edit", "Edit", map[string]string{"file_path": filepath.Join(cwd, "a.go")}, at("a.go"), true, false},
		{"a relative write", "Write", map[string]string{"file_path": "b.go"}, at("b.go"), true, false},
		{"a notebook", "NotebookEdit", map[string]string{"notebook_path": filepath.Join(cwd, "n.ipynb")}, at("n.ipynb"), true, false},
		{"a read", "Read", map[string]string{"file_path": "a.go"}, checkpoint.Scope{}, false, false},
		{"a read-only command", "Bash", bashIn{Command: "ls -la && cat a.go"}, checkpoint.Scope{}, false, false},
		{"rm -rf src", "Bash", bashIn{Command: "rm -rf src"}, at("src"), true, false},
		{"mv", "Bash", bashIn{Command: "mv a b"}, at("a", "b", "b"), true, false},
		{"cd then rm", "Bash", bashIn{Command: "cd sub && rm y"}, at("sub/y"), true, false},
		{"a redirect", "Bash", bashIn{Command: "echo hi > out.txt"}, at("out.txt"), true, false},
		{"a glob", "Bash", bashIn{Command: "rm -rf src/*.go"}, all, true, false},
		{"a variable", "Bash", bashIn{Command: `rm -rf "$DIR"`}, all, true, false},
		{"a build", "Bash", bashIn{Command: "make"}, all, true, false},
		{"git clean", "Bash", bashIn{Command: "git clean -fdx"}, all, true, false},
		{"through sudo", "Bash", bashIn{Command: "sudo rm x"}, all, true, false},
		{"find -delete", "Bash", bashIn{Command: "find . -name '*.o' -delete"}, all, true, false},
		{"in the background", "Bash", bashIn{Command: "npm run build", Background: true}, all, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, bg, ok := ScopeOf(context.Background(), tt.tool, pc, tt.input)
			if ok != tt.ok || bg != tt.bg || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ScopeOf = %+v, bg %v, ok %v; want %+v, %v, %v", got, bg, ok, tt.want, tt.bg, tt.ok)
			}
		})
	}
}
