package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinsdev/reins/permission"
)

func rules(ss ...string) []permission.RuleValue {
	out := make([]permission.RuleValue, len(ss))
	for i, s := range ss {
		out[i] = permission.ParseRule(s)
	}
	return out
}

func TestPersistKeepsUnknownKeysAndOrder(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "local", `{"zeta": {"b": 1.50, "a": "caf\u00e9 <b>"}, "permissions": {"ask": ["Glob"], "allow": ["Read"], "custom": [true, null]}, "alpha": []}`)
	err := Persist(e.opts, permission.Update{Type: permission.AddRules, Destination: permission.SourceLocal, Behavior: permission.Allow,
		Rules: rules("Bash(npm test:*)", "Bash(a > b && c)")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "zeta": {
    "b": 1.50,
    "a": "caf\u00e9 <b>"
  },
  "permissions": {
    "ask": [
      "Glob"
    ],
    "allow": [
      "Read",
      "Bash(npm test:*)",
      "Bash(a > b && c)"
    ],
    "custom": [
      true,
      null
    ]
  },
  "alpha": []
}
`
	if diff := cmp.Diff(want, readFile(t, p)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	// What was written loads back (trusted: a local file's allow rules wait for trust).
	pc, _ := e.context(t, Flags{Trusted: true})
	if diff := cmp.Diff([]string{"allow Read localSettings", "allow Bash(npm test:*) localSettings", "allow Bash(a > b && c) localSettings", "ask Glob localSettings"}, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

func TestPersistOperations(t *testing.T) {
	dirA, dirB := "/srv/a", "/srv/b"
	for _, tc := range []struct {
		name    string
		initial string // "" = no file
		updates []permission.Update
		want    string // "" = no file
	}{
		{
			name:    "add to missing file",
			updates: []permission.Update{{Type: permission.AddRules, Behavior: permission.Deny, Rules: rules("Bash(rm:*)")}},
			want:    "{\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm:*)\"\n    ]\n  }\n}\n",
		},
		{
			name:    "add deduplicates by normalised string",
			initial: `{"permissions": {"allow": ["Bash", "Task", "Read(x)", 3]}}`,
			updates: []permission.Update{{Type: permission.AddRules, Behavior: permission.Allow, Rules: rules("Bash(*)", "Agent", "Read(x)", "Edit", "Edit")}},
			want:    "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash\",\n      \"Task\",\n      \"Read(x)\",\n      3,\n      \"Edit\"\n    ]\n  }\n}\n",
		},
		{
			name:    "add collapses existing repeats",
			initial: `{"permissions": {"allow": ["Bash()", "Bash(*)", "Read"]}}`,
			updates: []permission.Update{{Type: permission.AddRules, Behavior: permission.Allow, Rules: rules("Read")}},
			want:    "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash()\",\n      \"Read\"\n    ]\n  }\n}\n",
		},
		{
			name:    "replace",
			initial: `{"permissions": {"ask": ["A", "B"], "deny": ["C"]}}`,
			updates: []permission.Update{{Type: permission.ReplaceRules, Behavior: permission.Ask, Rules: rules("X", "X", "Y")}},
			want:    "{\n  \"permissions\": {\n    \"ask\": [\n      \"X\",\n      \"Y\"\n    ],\n    \"deny\": [\n      \"C\"\n    ]\n  }\n}\n",
		},
		{
			name:    "remove by normalised string",
			initial: `{"permissions": {"allow": ["Bash(*)", "Task", "Read"], "deny": ["Bash"]}}`,
			updates: []permission.Update{{Type: permission.RemoveRules, Behavior: permission.Allow, Rules: rules("Bash", "Agent")}},
			want:    "{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\"\n    ],\n    \"deny\": [\n      \"Bash\"\n    ]\n  }\n}\n",
		},
		{
			name:    "remove from missing file writes nothing",
			updates: []permission.Update{{Type: permission.RemoveRules, Behavior: permission.Allow, Rules: rules("Bash")}, {Type: permission.RemoveDirectories, Directories: []string{dirA}}},
		},
		{
			name:    "set mode",
			initial: `{"permissions": {"defaultMode": "plan", "allow": []}}`,
			updates: []permission.Update{{Type: permission.SetMode, Mode: permission.ModeAcceptEdits}},
			want:    "{\n  \"permissions\": {\n    \"defaultMode\": \"acceptEdits\",\n    \"allow\": []\n  }\n}\n",
		},
		{
			name:    "directories",
			initial: `{"permissions": {"additionalDirectories": ["/srv/a/"]}}`,
			updates: []permission.Update{
				{Type: permission.AddDirectories, Directories: []string{dirA, dirB, dirB}},
				{Type: permission.RemoveDirectories, Directories: []string{dirA}},
			},
			want: "{\n  \"permissions\": {\n    \"additionalDirectories\": [\n      \"/srv/b\"\n    ]\n  }\n}\n",
		},
		{
			name:    "unchanged file is not rewritten",
			initial: `{"permissions":{"allow":["Read"]}}`,
			updates: []permission.Update{{Type: permission.AddRules, Behavior: permission.Allow, Rules: rules("Read(*)")}},
			want:    `{"permissions":{"allow":["Read"]}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.path("project")
			if tc.initial != "" {
				writeFile(t, p, tc.initial)
			}
			for i := range tc.updates {
				tc.updates[i].Destination = permission.SourceProject
			}
			if err := Persist(e.opts, tc.updates...); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(p)
			if tc.want == "" {
				if !os.IsNotExist(err) {
					t.Errorf("file written: %s (err %v)", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPersistDestinations(t *testing.T) {
	e := newEnv(t)
	add := func(dst permission.Source, rule string) permission.Update {
		return permission.Update{Type: permission.AddRules, Destination: dst, Behavior: permission.Allow, Rules: rules(rule)}
	}
	err := Persist(e.opts, add(permission.SourceUser, "UserRule"), add(permission.SourceProject, "ProjectRule"),
		add(permission.SourceLocal, "LocalRule"), add(permission.SourceSession, "SessionRule"), add(permission.SourceCLIArg, "CliRule"),
		add(permission.SourceLocal, "LocalRule2"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{e.path("user"), `"UserRule"`},
		{e.path("project"), `"ProjectRule"`},
		{e.path("local"), "\"LocalRule\",\n      \"LocalRule2\""},
	} {
		if got := readFile(t, tc.file); !strings.Contains(got, tc.want) {
			t.Errorf("%s = %s, want it to contain %s", tc.file, got, tc.want)
		}
	}
	for _, claude := range []string{"userClaude", "projectClaude", "localClaude"} {
		if _, err := os.Stat(e.path(claude)); !os.IsNotExist(err) {
			t.Errorf("%s was written", claude)
		}
	}
	wantPrivate(t, e.opts.ConfigDir, 0o700)
	pc, _ := e.context(t, Flags{Trusted: true})
	if diff := cmp.Diff([]string{"allow UserRule userSettings", "allow ProjectRule projectSettings", "allow LocalRule localSettings", "allow LocalRule2 localSettings"}, ruleStrings(pc)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}

	// Only session and cliArg: nothing to write.
	e2 := newEnv(t)
	if err := Persist(e2.opts, add(permission.SourceSession, "X"), add(permission.SourceCLIArg, "Y")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e2.opts.Cwd, ".reins")); !os.IsNotExist(err) {
		t.Error("in-memory updates created a folder")
	}
}

func TestPersistReadOnly(t *testing.T) {
	for _, src := range []permission.Source{permission.SourcePolicy, permission.SourceFlag, permission.SourceCommand} {
		t.Run(src.String(), func(t *testing.T) {
			e := newEnv(t)
			err := Persist(e.opts,
				permission.Update{Type: permission.AddRules, Destination: permission.SourceLocal, Behavior: permission.Allow, Rules: rules("Read")},
				permission.Update{Type: permission.AddRules, Destination: src, Behavior: permission.Deny, Rules: rules("Bash")})
			if !errors.Is(err, permission.ErrReadOnlySource) || !strings.Contains(err.Error(), src.String()) {
				t.Errorf("Persist = %v, want ErrReadOnlySource naming %s", err, src)
			}
			// Refused before anything was written, the valid local update included.
			if _, err := os.Stat(e.path("local")); !os.IsNotExist(err) {
				t.Error("the local file was written although the batch was refused")
			}
		})
	}
}

func TestPersistRefusesBadFiles(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"invalid JSON", "{\n  \"permissions\": {\"allow\": [\"Read\",]}\n}", ":2:36: invalid character ']' looking for beginning of value"},
		{"wrong type", `{"permissions": {"allow": "Read"}}`, ":1:27: permissions.allow must be an array of strings, not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.write(t, "local", tc.doc)
			err := Persist(e.opts, permission.Update{Type: permission.AddRules, Destination: permission.SourceLocal, Behavior: permission.Allow, Rules: rules("Edit")})
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), p+tc.want) {
				t.Errorf("Persist = %v, want a ParseError %s%s", err, p, tc.want)
			}
			if got := readFile(t, p); got != tc.doc {
				t.Errorf("bad file was overwritten:\n%s", got)
			}
		})
	}
}

func TestPersistRejectsBadUpdates(t *testing.T) {
	for _, u := range []permission.Update{
		{Type: permission.AddRules, Behavior: permission.Allow, Rules: rules("bash")},
		{Type: permission.AddRules, Behavior: permission.Passthrough, Rules: rules("Bash")},
		{Type: permission.SetMode, Mode: "yolo"},
		{Type: permission.SetMode, Mode: permission.ModeBubble},
		{Type: permission.AddDirectories, Directories: []string{""}},
		{Type: "frobnicate"},
	} {
		e := newEnv(t)
		u.Destination = permission.SourceLocal
		if err := Persist(e.opts, u); err == nil {
			t.Errorf("Persist(%+v) succeeded", u)
		}
		if _, err := os.Stat(e.path("local")); !os.IsNotExist(err) {
			t.Errorf("Persist(%+v) wrote the file", u)
		}
	}
}

func TestPersistAtomic(t *testing.T) {
	e := newEnv(t)
	old := "{\"keep\": \"me\"}"
	p := e.write(t, "local", old)
	renames := 0
	e.opts.hooks.rename = func(oldpath, newpath string) error {
		renames++
		if newpath != p {
			t.Errorf("rename target %s, want %s", newpath, p)
		}
		// The new content is complete and synced before the rename.
		if got := readFile(t, oldpath); !strings.Contains(got, `"Bash"`) || !strings.HasSuffix(got, "}\n") {
			t.Errorf("temporary file before rename:\n%s", got)
		}
		return errors.New("power cut")
	}
	err := Persist(e.opts, permission.Update{Type: permission.AddRules, Destination: permission.SourceLocal, Behavior: permission.Deny, Rules: rules("Bash")})
	if err == nil || !strings.Contains(err.Error(), "power cut") {
		t.Fatalf("Persist = %v, want the rename failure", err)
	}
	if renames != 1 {
		t.Errorf("%d renames, want 1", renames)
	}
	if got := readFile(t, p); got != old {
		t.Errorf("old content lost: %s", got)
	}
	assertNoTempFiles(t, filepath.Dir(p))
}

// TestConcurrentPersistKeepsEveryRule: 30 concurrent read-modify-writes of one file (as from 30
// sessions answering "always" at once) keep every rule; without the lock most were lost.
func TestConcurrentPersistKeepsEveryRule(t *testing.T) {
	e := newEnv(t)
	const n = 30
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := permission.Deny
			if i%2 == 1 {
				b = permission.Allow
			}
			errs <- Persist(e.opts, permission.Update{Type: permission.AddRules, Destination: permission.SourceLocal, Behavior: b,
				Rules: rules(fmt.Sprintf("Bash(cmd%d:*)", i))})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	pc, _ := e.context(t, Flags{Trusted: true})
	if got := len(pc.Rules()); got != n {
		t.Errorf("%d rules kept of %d: %v", got, n, ruleStrings(pc))
	}
}

// TestPersistLockTimesOut: a lock another process never releases ends in a clear error, not
// a hang.
func TestPersistLockTimesOut(t *testing.T) {
	e := newEnv(t)
	p := e.path("local")
	old := lockTimeout
	lockTimeout = 50 * time.Millisecond
	t.Cleanup(func() { lockTimeout = old })
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- withFileLock(p, 0o755, func() error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	err := Persist(e.opts, permission.Update{Type: permission.AddRules, Destination: permission.SourceLocal, Behavior: permission.Deny, Rules: rules("Read")})
	close(release)
	if err == nil || !strings.Contains(err.Error(), "is being changed by another process") {
		t.Errorf("Persist under a held lock = %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
