package client

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
	"github.com/reinsdev/reins/permission"
)

// TestHostileConfigFilesAreRefused: every file MCP servers are read from — the project's
// .mcp.json, ~/.claude.json, ~/.reins.json, a --mcp-config file, a settings file read for
// approvals, the pin file — that is a FIFO, a device, a folder, a socket or over its bound
// stops the load with an error naming it, and never hangs it.
func TestHostileConfigFilesAreRefused(t *testing.T) {
	places := []struct {
		name  string
		limit int64
		path  func(cwd, home string) string
		load  func(cwd, home, p string) error
	}{
		{".mcp.json", MaxConfigBytes, func(cwd, _ string) string { return filepath.Join(cwd, ".mcp.json") },
			func(cwd, home, _ string) error { _, err := Load(LoadOptions{Cwd: cwd, Home: home}); return err }},
		{"~/.claude.json", MaxUserFileBytes, func(_, home string) string { return filepath.Join(home, ".claude.json") },
			func(cwd, home, _ string) error { _, err := Load(LoadOptions{Cwd: cwd, Home: home}); return err }},
		{"~/.reins.json", MaxUserFileBytes, func(_, home string) string { return filepath.Join(home, ".reins.json") },
			func(cwd, home, _ string) error { _, err := Load(LoadOptions{Cwd: cwd, Home: home}); return err }},
		{"--mcp-config", MaxConfigBytes, func(cwd, _ string) string { return filepath.Join(cwd, "servers.json") },
			func(cwd, home, p string) error {
				_, err := Load(LoadOptions{Cwd: cwd, Home: home, Configs: []string{p}, Strict: true})
				return err
			}},
		{"settings", 4 << 20, func(cwd, _ string) string { return filepath.Join(cwd, "settings.json") },
			func(cwd, home, p string) error {
				_, err := Load(LoadOptions{Cwd: cwd, Home: home, Settings: []SettingsFile{{p, permission.SourceProject}}})
				return err
			}},
		{"pins", MaxConfigBytes, func(_, home string) string { return filepath.Join(home, "pins.json") },
			func(_, _, p string) error { _, err := OpenPins(p); return err }},
	}
	for _, place := range places {
		for _, h := range boundedfiletest.Hostile(place.limit) {
			t.Run(place.name+"/"+h.Name, func(t *testing.T) {
				cwd, home := t.TempDir(), t.TempDir()
				p := place.path(cwd, home)
				h.Make(t, p)
				done := make(chan error, 1)
				go func() { done <- place.load(cwd, home, p) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(60 * time.Second):
					t.Fatal("the load did not return")
				}
				var nr *boundedfile.NotRegularError
				var tl *boundedfile.TooLargeError
				if err == nil || !strings.Contains(err.Error(), p+" "+h.Want) || !errors.As(err, &nr) && !errors.As(err, &tl) {
					t.Errorf("load = %v, want a refusal of %s containing %q", err, p, h.Want)
				}
			})
		}
	}
}

// TestUserFileUpToItsBoundLoads: ~/.claude.json, which Claude Code fills with history, may be
// far larger than a project's config.
func TestUserFileUpToItsBoundLoads(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	doc := `{"mcpServers": {"big": {"command": "x"}}}`
	writeFile(t, home, ".claude.json", doc+strings.Repeat(" ", MaxConfigBytes))
	es, err := Load(LoadOptions{Cwd: cwd, Home: home})
	if err != nil || len(es) != 1 {
		t.Fatalf("Load = %v, %v", states(es), err)
	}
}
