package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tools"
)

// TestNewHostRefusesAsASessionDoes checks that what runs tools without a model (mcp serve,
// tool run) refuses what New refuses, and that its pools decide with the settings' rules.
func TestNewHostRefusesAsASessionDoes(t *testing.T) {
	p := newProject(t)
	for _, tt := range []struct {
		name, settings, user, mode string
		euid                       int
		want                       string
	}{
		{"broken deny rule", `{"permissions": {"deny": ["Bash(rm:*"]}}`, "", "", 1000, "Bash(rm:*"},
		{"bypass as root", "", "", "bypassPermissions", 0, "root"},
		{"bypass from the user's settings as root", "", `{"permissions": {"defaultMode": "bypassPermissions"}}`, "", 0, "root"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p.write(t, ".reins/settings.local.json", tt.settings+" ")
			writeTestFile(t, filepath.Join(p.home, ".reins", "settings.json"), tt.user+" ")
			euid := tt.euid
			h, err := NewHost(context.Background(), HostOptions{Cwd: p.dir, Getenv: p.getenv, Geteuid: func() int { return euid },
				Settings: SettingsOptions{Flags: settingsFlags(tt.mode)}})
			if err == nil {
				h.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}

	writeTestFile(t, filepath.Join(p.home, ".reins", "settings.json"), "{}")
	p.write(t, ".reins/settings.local.json", `{"permissions": {"deny": ["Bash(rm:*)"]}}`)
	h, err := NewHost(context.Background(), HostOptions{Cwd: p.dir, Getenv: p.getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	pool := h.NewPool(func() *permission.Context { return h.Settings.Context })
	defer pool.Close()
	bash, ok := tools.Find(pool.Tools, "Bash")
	if !ok {
		t.Fatal("no Bash in the host's pool")
	}
	in, err := bash.Decode(json.RawMessage(`{"command":"rm -rf build"}`))
	if err != nil {
		t.Fatal(err)
	}
	var engine permission.Engine
	if d, err := engine.Decide(context.Background(), h.Settings.Context, bash, in); err != nil || d.Behavior != permission.Deny {
		t.Errorf("rm in the host: %v %v", d.Behavior, err)
	}
}

func settingsFlags(mode string) settings.Flags { return settings.Flags{Mode: mode} }
