package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// loadWithin runs Load and fails the test if it has not returned by a generous deadline: the
// point of these tests is that hostile files end in an error instead of a hang.
func loadWithin(t *testing.T, opts Options) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(opts)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Load did not return")
		return nil
	}
}

func TestSettingsFileOverSizeCapFails(t *testing.T) {
	e := newEnv(t)
	p := e.path("project")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	// A sparse file: the size is what counts, not the bytes written.
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(50 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = loadWithin(t, e.opts)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "at most 4194304 bytes, 4 MiB") {
		t.Fatalf("Load = %v, want a too-large error stating the cap", err)
	}
}

func TestSettingsAtSizeCapLoads(t *testing.T) {
	e := newEnv(t)
	doc := `{"permissions": {"deny": ["Read"]}}`
	e.write(t, "user", doc+strings.Repeat(" ", MaxFileSize-len(doc)))
	pc, _ := e.context(t, Flags{})
	if diff := cmp.Diff([]string{"deny Read userSettings"}, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

// TestManagedPolicyMissingForASilentReasonFails: each way an installed policy can go missing
// without anyone choosing it is an error, never "no policy".
func TestManagedPolicyMissingForASilentReasonFails(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"managed dir does not exist", func(t *testing.T, e *testEnv) {
			e.opts.ManagedDir = filepath.Join(e.root, "nope")
		}, "(REINS_MANAGED_DIR) cannot be used"},
		{"managed dir is a file", func(t *testing.T, e *testEnv) {
			p := filepath.Join(e.root, "file")
			writeFile(t, p, "{}")
			e.opts.ManagedDir = p
		}, "is not a folder"},
		{"managed-settings.d is a file", func(t *testing.T, e *testEnv) {
			writeFile(t, filepath.Join(e.opts.ManagedDir, "managed-settings.d"), `{"permissions": {"deny": ["Bash"]}}`)
		}, "is not a folder"},
		{"system dir is a file", func(t *testing.T, e *testEnv) {
			p := filepath.Join(e.root, "etc-reins")
			writeFile(t, p, "{}")
			e.opts.ManagedDir = ""
			e.opts.hooks.systemDirs = []string{p}
		}, "is not a folder"},
	})
}

type policyCase struct {
	name  string
	setup func(t *testing.T, e *testEnv)
	want  string
}

func runPolicyCases(t *testing.T, cases []policyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tc.setup(t, e)
			err := loadWithin(t, e.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestManagedPathThatDoesNotExistIsNoPolicy: the ordinary machine has no /etc/reins.
func TestManagedPathThatDoesNotExistIsNoPolicy(t *testing.T) {
	e := newEnv(t)
	e.opts.ManagedDir = ""
	e.opts.hooks.systemDirs = []string{filepath.Join(e.root, "no-etc-reins"), filepath.Join(e.root, "no-etc-claude")}
	if err := loadWithin(t, e.opts); err != nil {
		t.Fatal(err)
	}
}

func TestUnknownKeysDidYouMean(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "user", `{"modle": "x", "Hooks": {}, "zzz": 1,
"permissions": {"Allow": [], "additionalDirectorys": 3}}`)
	_, warns := e.context(t, Flags{})
	want := []string{
		p + `:1:2: unknown key "modle" (did you mean "model"?)`,
		p + `:1:16: unknown key "Hooks" (did you mean "hooks"?)`,
		p + `:1:29: unknown key "zzz"`,
		p + `:2:17: unknown key "Allow" in permissions (did you mean "allow"?)`,
		p + `:2:30: unknown key "additionalDirectorys" in permissions (did you mean "additionalDirectories"?)`,
	}
	if diff := cmp.Diff(want, warningStrings(warns)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestUnknownKeyThatLosesRulesIsAnError: in any file, a key that would silently apply no
// rules is an error with its position and a suggestion: a misspelt permissions, a rule list
// at the top level, an unknown permissions key holding strings, null for a permission key.
func TestUnknownKeyThatLosesRulesIsAnError(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"permisions": {"deny": ["Bash"]}}`, `1:2: unknown key "permisions" (did you mean "permissions"?)`},
		{`{"Permissions": {}}`, `1:2: unknown key "Permissions" (did you mean "permissions"?)`},
		{`{"deny": ["Bash"]}`, `1:2: unknown key "deny" applies no permission rules at the top level (did you mean permissions.deny?)`},
		{`{"settings": {"deny": ["Bash"]}}`, `1:2: unknown key "settings" would apply no permission rules`},
		{`{"permissions": {"denyRules": ["Bash"]}}`, `1:18: unknown key "denyRules" in permissions holds strings`},
	} {
		e := newEnv(t)
		p := e.write(t, "local", tc.doc)
		_, err := Load(e.opts)
		if err == nil || !strings.HasPrefix(err.Error(), p+":"+tc.want) {
			t.Errorf("%s: Load = %v, want %s", tc.doc, err, tc.want)
		}
	}
}

// TestMisspeltDenyIsAnError: "Deny" would apply nothing while reading like a deny list.
func TestMisspeltDenyIsAnError(t *testing.T) {
	for _, key := range []string{"Deny", "denny", "ASK"} {
		e := newEnv(t)
		p := e.write(t, "local", `{"permissions": {"`+key+`": ["Bash(rm:*)"]}}`)
		_, err := Load(e.opts)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != p || pe.Line != 1 || pe.Col != 18 || !strings.Contains(pe.Msg, "did you mean") {
			t.Errorf("%s: Load = %v, want a positioned error with a suggestion", key, err)
		}
	}
}

// TestManagedUnknownKeyThatCouldHoldRulesIsAnError: an administrator's typo must not run as
// no policy; a harmless unknown scalar is still only a warning.
func TestManagedUnknownKeyThatCouldHoldRulesIsAnError(t *testing.T) {
	for _, tc := range []struct {
		doc     string
		wantErr bool
	}{
		{`{"permisions": {"deny": ["Bash"]}}`, true},
		{`{"Permissions": {"deny": ["Bash"]}}`, true},
		{`{"rules": ["Bash"]}`, true},
		{`{"permissions": {"denyList": ["Bash"]}}`, true},
		{`{"permissions": {"deny": ["Bash"], "foo": 1}}`, true},
		{`{"colour": "blue", "permissions": {"deny": ["Bash"]}}`, false},
	} {
		e := newEnv(t)
		e.write(t, "policy", tc.doc)
		_, err := Load(e.opts)
		var pe *ParseError
		if got := errors.As(err, &pe); got != tc.wantErr {
			t.Errorf("%s: Load = %v, want error %v", tc.doc, err, tc.wantErr)
		}
	}
}
