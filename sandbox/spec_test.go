package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestSpecProtectsMissingNames checks which paths the spec protects in a real tree, and how:
// read-only where they exist, checked after the command where they do not.
func TestSpecProtectsMissingNames(t *testing.T) {
	type want struct{ deny, create []string }
	tests := []struct {
		name  string
		files map[string]string // path → content; a trailing / makes a folder
		want  want
	}{
		{
			name:  "no .git",
			files: map[string]string{"src/": ""},
			want:  want{create: []string{".git", ".envrc", ".vscode"}},
		},
		{
			name:  "a repository",
			files: map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/config": "", ".envrc": "x"},
			want:  want{deny: []string{".git/config", ".envrc"}, create: []string{".git/hooks", ".vscode"}},
		},
		{
			name:  "an empty .git folder is no repository yet",
			files: map[string]string{".git/": ""},
			want:  want{deny: []string{".git"}},
		},
		{
			name:  "a .git file",
			files: map[string]string{".git": "gitdir: /elsewhere\n"},
			want:  want{deny: []string{".git"}},
		},
		{
			name: "nested repositories and a submodule's",
			files: map[string]string{
				"vendor/lib/.git/HEAD": "", "vendor/lib/.git/hooks/": "", "a/b/c/.git": "gitdir: x\n",
				".git/HEAD": "", ".git/modules/sub/HEAD": "", ".git/modules/sub/config": "",
			},
			want: want{
				deny:   []string{"vendor/lib/.git/hooks", "a/b/c/.git", ".git/modules/sub/config"},
				create: []string{"vendor/lib/.git/config", ".git/hooks", ".git/config", ".git/modules/sub/hooks"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			proj := filepath.Join(root, "proj")
			os.Mkdir(proj, 0o755)
			for p, content := range tt.files {
				full := filepath.Join(proj, p)
				if p[len(p)-1] == '/' {
					os.MkdirAll(full, 0o755)
					continue
				}
				os.MkdirAll(filepath.Dir(full), 0o755)
				if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			nested, _ := findRepos(proj, maxRepoWalk)
			sp := buildSpec(Config{
				WorkingDirs:    []string{proj},
				TempDir:        filepath.Join(root, "tmp"),
				ProtectedDirs:  []string{".git", ".vscode"},
				ProtectedFiles: []string{".envrc"},
			}, nested)
			check := func(what string, got, want []string) {
				for _, w := range want {
					if !slices.Contains(got, filepath.Join(proj, w)) {
						t.Errorf("%s lacks %s: %q", what, w, got)
					}
				}
			}
			check("WriteDeny", sp.WriteDeny, tt.want.deny)
			check("MustNotCreate", sp.MustNotCreate, tt.want.create)
			for _, p := range sp.MustNotCreate {
				if exists(p) {
					t.Errorf("MustNotCreate has %s, which exists", p)
				}
			}
		})
	}
}

func TestFindReposIsBounded(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"a/.git", "b/c/.git", "d/e/f/g/.git", "a/.git/inner/.git", ".git"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link"))
	got, complete := findRepos(root, 1000)
	want := []string{filepath.Join(root, "a/.git"), filepath.Join(root, "b/c/.git"), filepath.Join(root, "d/e/f/g/.git")}
	if !complete || !slices.Equal(got, want) {
		t.Errorf("findRepos = %q, %v; want %q (not root's own .git, nothing inside a .git, no symlink followed)", got, complete, want)
	}
	// root, a, b, d: the shallow ones are found first, and the search says it stopped.
	got, complete = findRepos(root, 4)
	if complete || !slices.Equal(got, want[:1]) {
		t.Errorf("bounded findRepos = %q, %v; want %q, false", got, complete, want[:1])
	}
}

// TestLargeProtectedFolder: a protected folder past the snapshot's bound is not mistaken for
// one a command filled: entries the snapshot could not list are left alone.
func TestLargeProtectedFolder(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	idea := filepath.Join(root, "proj", ".idea")
	os.MkdirAll(idea, 0o755)
	for i := range maxSnapshotEntries + 50 {
		os.WriteFile(filepath.Join(idea, "f"+strconv.Itoa(i)+".xml"), []byte("<x/>"), 0o644)
	}
	s := &Sandbox{cfg: Config{WorkingDirs: []string{filepath.Join(root, "proj")}, TempDir: t.TempDir(), QuarantineDir: t.TempDir(), ProtectedDirs: []string{".idea"}}}
	sp := s.buildSpec(nil, nil)
	if lines := s.guard(&sp).check(); len(lines) > 0 {
		t.Errorf("an unchanged large protected folder was reported: %q", lines)
	}
	n, _ := os.ReadDir(idea)
	if len(n) != maxSnapshotEntries+50 {
		t.Errorf("%d entries left of %d", len(n), maxSnapshotEntries+50)
	}
}
