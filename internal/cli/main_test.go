package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The package's end-to-end tests run the real reins binary. It is built once, on first use,
// by reinsBinary; TestMain removes it afterwards.
var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string

	// parallel holds the tests reinsBinary has made parallel (t.Parallel may be called once).
	parallel sync.Map
	// tempDirs are removed after the tests, as binDir is (keepTempDir adds one).
	tempDirs   []string
	tempDirsMu sync.Mutex
)

// keepTempDir has dir removed after the package's tests: the builds the end-to-end tests
// share outlive any one test's t.TempDir.
func keepTempDir(dir string) {
	tempDirsMu.Lock()
	defer tempDirsMu.Unlock()
	tempDirs = append(tempDirs, dir)
}

// reinsBinary returns the path of the reins binary the package's end-to-end tests share. It
// makes its caller one of them: `go test -short`, the suite's fast layer, leaves it out, and a
// whole test (not a subtest, whose siblings may share its parent's state) runs in parallel
// with the other end-to-end tests — each has its own home, project, fakes and tmux server —
// once the package's other tests are done.
func reinsBinary(t testing.TB) string {
	t.Helper()
	e2eTest(t)
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "reins-e2e-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "reins")
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/reinsdev/reins/cmd/reins")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// e2eTest makes t one of the end-to-end tests: -short skips it, and a whole test runs in
// parallel with the others (see reinsBinary).
func e2eTest(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("an end-to-end test (it runs the built reins): -short leaves it out; the whole suite runs it")
	}
	if tt, ok := t.(*testing.T); ok && !strings.Contains(tt.Name(), "/") {
		if _, done := parallel.LoadOrStore(tt, true); !done {
			tt.Parallel()
		}
	}
}

// cleanRun runs the tests and then removes the shared binary and temporary folders.
type cleanRun struct{ m *testing.M }

func (c cleanRun) Run() int {
	code := c.m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	return code
}

func TestMain(m *testing.M) {
	// The in-process tests' sessions run Bash in the sandbox by default, with the test binary
	// as the helper the backends re-execute.
	if code, ok := sandboxHelper(os.Args[1:]); ok {
		os.Exit(code)
	}
	// The scripts of testdata/script run this binary under the name reins: testscript.Main
	// puts a copy of it by that name on their PATH and, started as it, runs reins's Main.
	testscript.Main(cleanRun{m}, map[string]func(){
		"reins": func() { os.Exit(Main()) },
	})
}
