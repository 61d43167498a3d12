//go:build unix

package checkpoint

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// plantPaths are where a trick may be planted after the checkpoint.
var plantPaths = []string{"src", "src/a.txt", "src/.env", "src/sub", "src/sub/b.txt", "top.txt"}

// FuzzRestoreAgainstLinks plants symlinks, hard links, FIFOs, files and folders after a
// checkpoint, each byte pair choosing a trick and a path, then rewinds with Overwrite: the
// folder outside the working directory is never changed, and every file the rewind says it
// put back is a regular file with one name and the content it had.
func FuzzRestoreAgainstLinks(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{1, 1})
	f.Add([]byte{2, 1})
	f.Add([]byte{3, 2, 0, 3})
	f.Add([]byte{4, 1, 5, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16 {
			return
		}
		fx := newFixture(t, Limits{})
		want := map[string]string{"src/a.txt": "a\n", "src/.env": "TOKEN=1\n", "src/sub/b.txt": "b\n", "top.txt": "top\n"}
		for p, c := range want {
			fx.write(p, c, 0o644)
		}
		secret := filepath.Join(fx.outside, "secret.txt")
		os.WriteFile(secret, []byte("secret\n"), 0o644)
		fx.begin("m1")
		fx.change(Scope{All: true}, func() { os.RemoveAll(fx.path("src")); os.Remove(fx.path("top.txt")) })
		for i := 0; i+1 < len(data); i += 2 {
			plant(fx, data[i]%6, fx.path(plantPaths[int(data[i+1])%len(plantPaths)]), secret)
		}
		outside := tree(t, fx.outside)
		res := fx.rewind("m1", RewindOptions{Overwrite: true})
		if got := tree(t, fx.outside); !reflect.DeepEqual(got, outside) {
			t.Fatalf("outside changed:\n got %v\nwant %v", got, outside)
		}
		for _, p := range res.FilesChanged {
			rel, _ := filepath.Rel(fx.root, p)
			info, err := os.Lstat(p)
			if err != nil || !info.Mode().IsRegular() || info.Sys().(*syscall.Stat_t).Nlink != 1 {
				t.Fatalf("%s put back as %v (%v)", rel, info, err)
			}
			if b, _ := os.ReadFile(p); string(b) != want[rel] {
				t.Fatalf("%s = %q, want %q", rel, b, want[rel])
			}
		}
	})
}

// plant makes one trick at path.
func plant(fx *fixture, trick byte, path, secret string) {
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return // a FIFO or a file stands where a folder would be (RemoveAll would open it)
	}
	switch trick {
	case 0: // a symlink to the outside folder
		os.RemoveAll(path)
		os.Symlink(fx.outside, path)
	case 1: // a symlink to the outside file
		os.RemoveAll(path)
		os.Symlink(secret, path)
	case 2: // a hard link to the outside file
		os.RemoveAll(path)
		os.Link(secret, path)
	case 3: // a FIFO
		os.RemoveAll(path)
		syscall.Mkfifo(path, 0o644)
	case 4: // a folder
		os.RemoveAll(path)
		os.Mkdir(path, 0o755)
	case 5: // a file the person wrote
		os.RemoveAll(path)
		os.WriteFile(path, []byte("person\n"), 0o644)
	}
}
