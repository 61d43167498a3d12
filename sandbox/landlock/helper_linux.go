package landlock

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// HelperMain restricts the process with the rules of args[0] and executes args[2:] (args[1]
// is "--"). It returns only on failure, with the exit status to use: the command never runs
// unconfined.
func HelperMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "reins sandbox:", ErrUsage)
		return 2
	}
	spec, err := readSpec(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox: bad helper spec:", err)
		return 2
	}
	// Capabilities are per thread: the thread that drops them must be the one that executes
	// the command.
	runtime.LockOSThread()
	if err := restrict(spec); err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox: cannot apply Landlock:", err)
		return 126
	}
	if err := dropCapabilities(); err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox:", err)
		return 126
	}
	argv := args[2:]
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox:", err)
		return 127
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintln(os.Stderr, "reins sandbox: exec:", err)
	return 126
}

func restrict(spec helperSpec) error {
	v, err := ABI()
	if err != nil || v < MinABI {
		return fmt.Errorf("the Landlock ABI %d is too old (need %d): %v", v, MinABI, err)
	}
	cfg := ll.V11.BestEffort()
	if spec.LocalBinding {
		cfg.HandledAccessNet &^= llsys.AccessNetBindTCP
	}
	rules := make([]ll.Rule, 0, len(spec.Grants)+1)
	for _, g := range spec.Grants {
		rules = append(rules, grantRule(g))
	}
	if spec.ProxyPort > 0 && spec.ProxyPort < 1<<16 {
		rules = append(rules, ll.ConnectTCP(uint16(spec.ProxyPort)))
	}
	if err := cfg.Restrict(rules...); err != nil {
		return err
	}
	return installSocketFilter(spec.UnixListed)
}

func grantRule(g Grant) ll.Rule {
	switch g.Access {
	case AccessRW:
		if g.Dir {
			return ll.RWDirs(g.Path).WithRefer().IgnoreIfMissing()
		}
		return ll.RWFiles(g.Path).IgnoreIfMissing()
	case AccessListDir:
		return ll.PathAccess(llsys.AccessFSReadDir, g.Path).IgnoreIfMissing()
	case AccessDev:
		if g.Dir {
			return ll.RWDirs(g.Path).WithIoctlDev().IgnoreIfMissing()
		}
		return ll.RWFiles(g.Path).WithIoctlDev().IgnoreIfMissing()
	case AccessSocket:
		return ll.ROFiles(g.Path).WithResolveUnix().IgnoreIfMissing()
	}
	if g.Dir {
		return ll.RODirs(g.Path).IgnoreIfMissing()
	}
	return ll.ROFiles(g.Path).IgnoreIfMissing()
}

// readSpec reads the rules from the inherited pipe "fd:N" and closes it, so the command does
// not inherit it.
func readSpec(arg string) (helperSpec, error) {
	var spec helperSpec
	n, ok := strings.CutPrefix(arg, "fd:")
	fd, err := strconv.Atoi(n)
	if !ok || err != nil || fd < 3 {
		return spec, ErrUsage
	}
	f := os.NewFile(uintptr(fd), "sandbox-spec")
	defer f.Close()
	if err := json.NewDecoder(f).Decode(&spec); err != nil {
		return spec, err
	}
	return spec, nil
}
