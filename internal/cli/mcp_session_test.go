package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/mcp/client"
)

// askProjectServers records the person's answers through the code of `reins mcp approve` and
// reads the configuration again, so the servers start or stay off as answered.
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
	f := &Factory{Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return dir, nil }}
	lo := client.LoadOptions{Cwd: dir, Home: home, ProjectTrusted: true, Getenv: f.Getenv}
	entries, err := client.Load(lo)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	approve := func(_ context.Context, pending []client.Entry) (map[string]bool, error) {
		for _, e := range pending {
			asked = append(asked, e.Config.Name)
		}
		return map[string]bool{"a": true, "b": false}, nil // c unanswered
	}
	got, err := askProjectServers(t.Context(), f, lo, entries, approve)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"a", "b", "c"}) {
		t.Errorf("asked about %v", asked)
	}
	states := map[string]client.State{}
	for _, e := range got {
		states[e.Config.Name] = e.State
	}
	want := map[string]client.State{"a": client.StateReady, "b": client.StateDisabled, "c": client.StateNeedsApproval}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("states after the answers (-want +got):\n%s", diff)
	}

	// The next start asks only about the unanswered one; the recorded answers stand.
	entries, err = client.Load(lo)
	if err != nil {
		t.Fatal(err)
	}
	asked = nil
	if _, err := askProjectServers(t.Context(), f, lo, entries, approve); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"c"}) {
		t.Errorf("the second start asked about %v, want only c", asked)
	}
}
