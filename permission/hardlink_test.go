package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeChecker is an Edit-like tool whose own check is the shared write check of its input.
type writeChecker struct{}

func (writeChecker) Name() string                  { return "Edit" }
func (writeChecker) RequiresUserInteraction() bool { return false }
func (writeChecker) CheckPermissions(ctx context.Context, pc *Context, in any) Decision {
	return pc.CheckWrite(ctx, in.(string))
}

func hardLink(t *testing.T, old, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	// Every supported system makes hard links without a privilege (ext4, APFS, NTFS; Wine
	// too): a failure is the test's.
	if err := os.Link(old, name); err != nil {
		t.Fatal(err)
	}
}

// TestWriteThroughHardLink: a write to a file with several names is a write to each name the
// search finds, in every mode, and a name it cannot find keeps every allow from it.
type linkCase struct {
	name  string
	mode  Mode
	rules []Rule
	// setup makes the links in the fixture and returns the path written.
	setup func(t *testing.T, f fsFixture) string
	want  Behavior
	// safety: the ask is a safety check, which bypassPermissions keeps.
	safety bool
	detail string
}

func TestWriteThroughHardLink(t *testing.T) {
	runLinkCases(t, []linkCase{
		{name: "git hook in bypass", mode: ModeBypass, want: Ask, safety: true, detail: "a hard link to",
			setup: func(t *testing.T, f fsFixture) string {
				writeFile(t, filepath.Join(f.proj, ".git", "hooks", "pre-commit"))
				hardLink(t, filepath.Join(f.proj, ".git", "hooks", "pre-commit"), filepath.Join(f.proj, "notes.txt"))
				return filepath.Join(f.proj, "notes.txt")
			}},
		{name: "home bashrc in bypass", mode: ModeBypass, want: Ask, safety: true, detail: ".bashrc is a protected file",
			setup: func(t *testing.T, f fsFixture) string {
				writeFile(t, filepath.Join(f.home, ".bashrc"))
				hardLink(t, filepath.Join(f.home, ".bashrc"), filepath.Join(f.proj, "rc.txt"))
				return filepath.Join(f.proj, "rc.txt")
			}},
		{name: "home claude settings in acceptEdits", mode: ModeAcceptEdits, want: Ask, safety: true, detail: "inside .claude",
			setup: func(t *testing.T, f fsFixture) string {
				writeFile(t, filepath.Join(f.home, ".claude", "settings.json"))
				hardLink(t, filepath.Join(f.home, ".claude", "settings.json"), filepath.Join(f.proj, "s.json"))
				return filepath.Join(f.proj, "s.json")
			}},
		{name: "nested protected name in the project", mode: ModeBypass, want: Ask, safety: true, detail: ".npmrc is a protected file",
			setup: func(t *testing.T, f fsFixture) string {
				writeFile(t, filepath.Join(f.proj, "pkg", "web", ".npmrc"))
				hardLink(t, filepath.Join(f.proj, "pkg", "web", ".npmrc"), filepath.Join(f.proj, "src", "npmrc.txt"))
				return filepath.Join(f.proj, "src", "npmrc.txt")
			}},
		{name: "written name is the protected one's twin the other way", mode: ModeBypass, want: Ask, safety: true,
			setup: func(t *testing.T, f fsFixture) string {
				writeFile(t, filepath.Join(f.proj, "plain.txt"))
				hardLink(t, filepath.Join(f.proj, "plain.txt"), filepath.Join(f.proj, ".vscode", "tasks.json"))
				return filepath.Join(f.proj, "plain.txt")
			}},
		{name: "outside file in acceptEdits", mode: ModeAcceptEdits, want: Ask, detail: "2 hard links, 1 of them not in the working directories",
			setup: func(t *testing.T, f fsFixture) string {
				hardLink(t, filepath.Join(f.outside, "o.txt"), filepath.Join(f.proj, "o-link.txt"))
				return filepath.Join(f.proj, "o-link.txt")
			}},
		{name: "outside file past a project Edit allow rule", mode: ModeDefault, rules: rules(Allow, SourceSession, "Edit(/**)"), want: Ask,
			detail: "not in the working directories",
			setup: func(t *testing.T, f fsFixture) string {
				hardLink(t, filepath.Join(f.outside, "o.txt"), filepath.Join(f.proj, "o-link.txt"))
				return filepath.Join(f.proj, "o-link.txt")
			}},
		{name: "outside file in bypass is an outside write", mode: ModeBypass, want: Allow,
			setup: func(t *testing.T, f fsFixture) string {
				hardLink(t, filepath.Join(f.outside, "o.txt"), filepath.Join(f.proj, "o-link.txt"))
				return filepath.Join(f.proj, "o-link.txt")
			}},
		{name: "both names in the project, none protected", mode: ModeAcceptEdits, want: Allow,
			setup: func(t *testing.T, f fsFixture) string {
				hardLink(t, filepath.Join(f.proj, "a.txt"), filepath.Join(f.proj, "deep", "a-copy.txt"))
				return filepath.Join(f.proj, "a.txt")
			}},
		{name: "other name under an Edit deny rule", mode: ModeAcceptEdits, rules: rules(Deny, SourceSession, "Edit(/deep/**)"), want: Deny,
			setup: func(t *testing.T, f fsFixture) string {
				hardLink(t, filepath.Join(f.proj, "a.txt"), filepath.Join(f.proj, "deep", "a-copy.txt"))
				return filepath.Join(f.proj, "a.txt")
			}},
		{name: "one link, nothing changes", mode: ModeAcceptEdits, want: Allow,
			setup: func(t *testing.T, f fsFixture) string { return filepath.Join(f.proj, "a.txt") }},
	})
}

func runLinkCases(t *testing.T, tests []linkCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			p := tt.setup(t, f)
			pc := mustNew(t, Config{Mode: tt.mode, Cwd: f.proj, Home: f.home, Rules: tt.rules})
			d, err := (&Engine{}).Decide(context.Background(), pc, writeChecker{}, p)
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want {
				t.Fatalf("decision %v (%s), want %v", d.Behavior, reasonText(d), tt.want)
			}
			if tt.safety && (d.Reason == nil || d.Reason.Type != ReasonSafetyCheck) {
				t.Errorf("reason %s, want a safety check", reasonText(d))
			}
			if !strings.Contains(reasonText(d), tt.detail) {
				t.Errorf("reason %q does not say %q", reasonText(d), tt.detail)
			}
		})
	}
}

func reasonText(d Decision) string {
	if d.Reason == nil {
		return ""
	}
	return string(d.Reason.Type) + ": " + d.Reason.Detail
}

// TestHardLinkSearchCutShort: when the search cannot read every place (here: more entries
// than it may read), a name it did not find may be a protected one, so the write asks as a
// safety check even in bypassPermissions.
func TestHardLinkSearchCutShort(t *testing.T) {
	f := newFixture(t)
	hardLink(t, filepath.Join(f.outside, "o.txt"), filepath.Join(f.proj, "o-link.txt"))
	defer func(n int) { maxLinkSearch = n }(maxLinkSearch)
	maxLinkSearch = 3
	pc := mustNew(t, Config{Mode: ModeBypass, Cwd: f.proj, Home: f.home})
	d, err := (&Engine{}).Decide(context.Background(), pc, writeChecker{}, filepath.Join(f.proj, "o-link.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Behavior != Ask || d.Reason.Type != ReasonSafetyCheck || !strings.Contains(d.Reason.Detail, "could not search") {
		t.Fatalf("decision %v (%s), want a safety ask", d.Behavior, reasonText(d))
	}
}

// TestHardLinkSearchOncePerDecision: two checks of one multi-link file in one decision share
// one search.
func TestHardLinkSearchOncePerDecision(t *testing.T) {
	f := newFixture(t)
	hardLink(t, filepath.Join(f.proj, "a.txt"), filepath.Join(f.proj, "b.txt"))
	pc := mustNew(t, Config{Mode: ModeAcceptEdits, Cwd: f.proj, Home: f.home})
	ctx := WithStatCache(context.Background())
	pc.CheckWrite(ctx, "a.txt")
	sc := statCacheOf(ctx)
	if len(sc.links) != 1 {
		t.Fatalf("%d searches remembered, want 1", len(sc.links))
	}
	var h *hardLinks
	for _, v := range sc.links {
		h = v
	}
	if d := pc.CheckWrite(ctx, "b.txt"); d.Behavior != Allow || len(sc.links) != 1 || len(h.names) != 2 || !h.complete {
		t.Fatalf("second check %v, %d searches, names %v", d.Behavior, len(sc.links), h.names)
	}
}
