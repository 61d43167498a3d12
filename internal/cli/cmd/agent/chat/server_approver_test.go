package chat

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/settings"
)

// The chat's approver of project servers records the person's answers through the code of
// `reins mcp approve`, and the session reads the configuration again, so the servers start or
// stay off as answered.
func TestAskProjectServers(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	dir, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	for _, d := range []string{dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {
		"a": {"command": "/nonexistent/a"}, "b": {"command": "/nonexistent/b"}, "c": {"command": "/nonexistent/c"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	f := &cmdutil.Factory{Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return dir, nil }}
	if err := settings.Trust(cmdutil.SettingsOptions(f, dir).ConfigDir, "", dir); err != nil {
		t.Fatal(err)
	}
	var asked []string
	approver := serverApprover{f: f, ask: func(_ context.Context, pending []client.Entry) (map[string]bool, error) {
		for _, e := range pending {
			asked = append(asked, e.Config.Name)
		}
		return map[string]bool{"a": true, "b": false}, nil // c unanswered
	}}
	start := func() map[string]string {
		t.Helper()
		penv, err := (&cmdutil.PermFlags{}).Load(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := app.StartMCP(t.Context(), penv, penv.Context, f.Getenv, app.MCPOptions{Approver: approver}, nil, app.Reporter{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		states := map[string]string{}
		for _, st := range m.Status() {
			states[st.Name] = st.State
		}
		return states
	}
	states := start()
	if !slices.Equal(asked, []string{"a", "b", "c"}) {
		t.Errorf("asked about %v", asked)
	}
	// a was approved, so it was started (and failed: its command does not exist).
	want := map[string]string{"a": client.StateFailed, "b": string(client.StateDisabled), "c": string(client.StateNeedsApproval)}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("states after the answers (-want +got):\n%s", diff)
	}

	// The next start asks only about the unanswered one; the recorded answers stand.
	asked = nil
	start()
	if !slices.Equal(asked, []string{"c"}) {
		t.Errorf("the second start asked about %v, want only c", asked)
	}
}
