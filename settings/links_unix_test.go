//go:build unix

// The settings tests that need a symlink, a FIFO or a device file. On Windows a symlink needs a
// privilege (or developer mode) and Wine 8, which runs the Windows tests in CI, makes none
// (CreateSymbolicLink reports success and creates nothing); FIFOs and device files in folders
// are Unix's.

package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestSettingsFromDevURandomFails(t *testing.T) {
	e := newEnv(t)
	p := e.path("projectClaude")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/urandom", p); err != nil {
		t.Fatal(err)
	}
	err := loadWithin(t, e.opts)
	var nr *NotRegularError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "is a character device, not a regular file") {
		t.Fatalf("Load = %v, want a not-a-regular-file error", err)
	}
}

func TestSettingsFromFIFOFails(t *testing.T) {
	e := newEnv(t)
	p := e.path("local")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := boundedfiletest.Mkfifo(p); err != nil {
		t.Fatal(err)
	}
	// Nobody ever opens the FIFO for writing: a blocking open would wait for ever.
	err := loadWithin(t, e.opts)
	if err == nil || !strings.Contains(err.Error(), "is a FIFO, not a regular file") {
		t.Fatalf("Load = %v, want a FIFO error", err)
	}
}

// Each way an installed policy can go missing through a symlink is an error.
func TestManagedPolicyDanglingSymlinkFails(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"dangling managed-settings.json", func(t *testing.T, e *testEnv) {
			symlink(t, filepath.Join(e.root, "gone.json"), e.path("policy"))
		}, "is a symlink to"},
		{"dangling drop-in", func(t *testing.T, e *testEnv) {
			if err := os.MkdirAll(filepath.Dir(e.path("dropin:x")), 0o755); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Join(e.root, "gone.json"), e.path("dropin:10-deny.json"))
		}, "is a symlink to"},
	})
}

func TestDanglingProjectSymlinkWarns(t *testing.T) {
	e := newEnv(t)
	p := e.path("projectClaude")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(e.root, "gone.json"), p)
	_, warns := e.context(t, Flags{})
	if !hasWarning(warns, p+": symlink to") {
		t.Errorf("warnings %q", warningStrings(warns))
	}
}

func TestSameFileLoadsOnceThroughSymlink(t *testing.T) {
	t.Run("symlinked config folder", func(t *testing.T) {
		e := newEnv(t)
		e.write(t, "user", `{"permissions": {"allow": ["Read"]}}`)
		if err := os.Symlink(e.opts.ConfigDir, e.opts.ClaudeConfigDir); err != nil {
			t.Fatal(err)
		}
		l := e.load(t)
		if got := l.Files[1].DuplicateOf; got != e.path("user") {
			t.Errorf("Claude user file DuplicateOf = %q, want %q", got, e.path("user"))
		}
		pc, _, err := l.Context(Flags{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"allow Read userSettings"}, ruleStrings(pc)); diff != "" {
			t.Errorf("rules (-want +got):\n%s", diff)
		}
	})
}

func TestPersistKeepsModeAndSymlink(t *testing.T) {
	e := newEnv(t)
	real := filepath.Join(e.root, "dotfiles", "settings.json")
	writeFile(t, real, `{}`)
	if err := os.Chmod(real, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.opts.ConfigDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, e.path("user")); err != nil {
		t.Fatal(err)
	}
	if err := Persist(e.opts, permission.Update{Type: permission.SetMode, Destination: permission.SourceUser, Mode: permission.ModePlan}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(e.path("user"))
	if err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("user settings is no longer a symlink: %v %v", info, err)
	}
	info, err = os.Stat(real)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
	if got := readFile(t, real); !strings.Contains(got, `"defaultMode": "plan"`) {
		t.Errorf("target not updated: %s", got)
	}
}

// Trusting through a symlink records the real folder, and what lies under the link is trusted.
func TestTrustThroughSymlink(t *testing.T) {
	e := newEnv(t)
	cfg, proj := e.opts.ConfigDir, e.opts.Cwd
	link := filepath.Join(e.root, "link")
	symlink(t, proj, link)
	if err := Trust(cfg, "", link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{proj, filepath.Join(link, "a")} {
		if ok, err := IsTrusted(cfg, "", dir); err != nil || !ok {
			t.Errorf("IsTrusted(%s) = %v, %v; want true", dir, ok, err)
		}
	}
	if got, want := readFile(t, trustFile(cfg)), "{\n  \"trustedProjects\": [\n    "+posjson.Quote(proj)+"\n  ]\n}\n"; got != want {
		t.Errorf("trust file\n%s\nwant\n%s", got, want)
	}
}

func TestTrustedEntryBehindSymlink(t *testing.T) {
	// A recorded folder that has since become a symlink still covers its target.
	e := newEnv(t)
	real := filepath.Join(e.root, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(e.root, "linked")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	writeFile(t, trustFile(e.opts.ConfigDir), `{"trustedProjects": [`+jsonString(link)+`]}`)
	ok, err := IsTrusted(e.opts.ConfigDir, "", real)
	if err != nil || !ok {
		t.Errorf("IsTrusted(%s) = %v, %v; want true", real, ok, err)
	}
}
