//go:build !linux && !darwin

package sessionsandbox

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"

	"github.com/reinsdev/reins/sandbox"
)

// sandboxBackends on a system with no OS sandbox of Reins' (Windows, the BSDs) is one backend
// that never works, so that `reins sandbox status` and an enabled sandbox say why, by name,
// rather than that "no backend" was found.
func sandboxBackends(getenv func(string) string) ([]sandbox.Backend, error) {
	if b := getenv("REINS_SANDBOX_BACKEND"); b != "" {
		return nil, fmt.Errorf("REINS_SANDBOX_BACKEND=%q: Reins has no sandbox backend on %s", b, runtime.GOOS)
	}
	return []sandbox.Backend{noBackend{}}, nil
}

// errNoOSSandbox is why no command can be confined here.
var errNoOSSandbox = fmt.Errorf("Reins has no OS sandbox on %s (Bash commands are checked by the permission rules only; see docs/security.md)", runtime.GOOS)

type noBackend struct{}

func (noBackend) Name() string                                  { return "none" }
func (noBackend) Probe(context.Context, *sandbox.Spec) error    { return errNoOSSandbox }
func (noBackend) Wrap(*exec.Cmd, *sandbox.Spec) (func(), error) { return nil, errNoOSSandbox }
func (noBackend) Describe(*sandbox.Spec) []string               { return []string{errNoOSSandbox.Error()} }
