package bash

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

func TestBashPermissions(t *testing.T) {
	f := newFixture(t, Options{})
	rules := []permission.Rule{
		{Value: permission.RuleValue{Tool: "Bash", Content: "rm:*"}, Behavior: permission.Deny, Source: permission.SourceSession},
		{Value: permission.RuleValue{Tool: "Bash", Content: "make:*"}, Behavior: permission.Allow, Source: permission.SourceSession},
	}
	pc, err := permission.New(permission.Config{Cwd: f.dir, Home: f.dir, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	f.pc = pc
	bt := f.shell.BashTool()
	check := func(cmd string) permission.Behavior {
		in, err := bt.Decode([]byte(`{"command":` + quote(cmd) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return bt.CheckPermissions(context.Background(), pc, in).Behavior
	}
	for cmd, want := range map[string]permission.Behavior{
		"ls":                       permission.Allow,
		"make test":                permission.Allow,
		"echo hi && rm -rf x":      permission.Deny,
		"curl https://example.com": permission.Passthrough,
	} {
		if got := check(cmd); got != want {
			t.Errorf("%q: %v, want %v", cmd, got, want)
		}
	}
	// Read-only (and concurrency-safe) needs a context; the Shell has seen one now.
	if !bt.Is(tool.ReadOnly, Input{Command: "ls -la"}) || !bt.Is(tool.ConcurrencySafe, Input{Command: "cat x"}) {
		t.Error("ls and cat are read-only")
	}
	if bt.Is(tool.ReadOnly, Input{Command: "touch x"}) || bt.Is(tool.ConcurrencySafe, Input{Command: "rm x"}) {
		t.Error("touch and rm write")
	}
	if New(Options{}).BashTool().Is(tool.ReadOnly, Input{Command: "ls"}) {
		t.Error("read-only without any permission context")
	}

	// Relative paths are checked against the shell's directory.
	// From the project directory ../x is outside; from its subdirectory it is inside.
	if got := check("cat ../x"); got == permission.Allow {
		t.Fatalf("cat ../x from the project directory: %v", got)
	}
	os.MkdirAll(filepath.Join(f.dir, "sub"), 0o755)
	f.run("cd sub")
	if got := check("cat ../x"); got != permission.Allow {
		t.Errorf("cat ../x from the shell's directory sub: %v, want allow", got)
	}
}

func TestBashPermissionsOptionsContext(t *testing.T) {
	dir := t.TempDir()
	pc, _ := permission.New(permission.Config{Cwd: dir, Home: dir})
	s := New(Options{Permissions: func() *permission.Context { return pc }})
	if !s.BashTool().Is(tool.ReadOnly, Input{Command: "ls"}) {
		t.Fatal("Options.Permissions not used")
	}
}

func quote(s string) string {
	b := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(append(b, '"'))
}
