package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The package's end-to-end tests run the real reins binary. It is built once, on first use,
// by reinsBinary; TestMain removes it afterwards.
var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
	// tempDirs are removed after the tests, as binDir is.
	tempDirs []string
)

// reinsBinary returns the path of a freshly built reins binary.
func reinsBinary(t testing.TB) string {
	t.Helper()
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

func TestMain(m *testing.M) {
	// The in-process tests' sessions run Bash in the sandbox by default, with the test binary
	// as the helper the backends re-execute.
	if code, ok := sandboxHelper(os.Args[1:]); ok {
		os.Exit(code)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
