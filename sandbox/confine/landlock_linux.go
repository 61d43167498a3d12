package confine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// LandlockMain restricts the process with the rules read from args[0] ("fd:N", a pipe) and
// executes args[2:] (args[1] is "--"). It returns only on failure, with the exit status to
// use: the command never runs unconfined.
func LandlockMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "reins sandbox:", ErrUsage)
		return 2
	}
	rules, err := readRules(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox: bad helper rules:", err)
		return 2
	}
	path, err := exec.LookPath(args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox:", err)
		return 127
	}
	// Landlock domains and capabilities are per thread: the thread that restricts itself
	// must be the one that executes the command.
	runtime.LockOSThread()
	if err := restrictLandlock(rules); err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox: cannot apply Landlock:", err)
		return 126
	}
	if err := installSocketFilter(true, rules.UnixListed); err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox:", err)
		return 126
	}
	if err := dropCapabilities(); err != nil {
		fmt.Fprintln(os.Stderr, "reins sandbox:", err)
		return 126
	}
	err = syscall.Exec(path, args[2:], os.Environ())
	fmt.Fprintln(os.Stderr, "reins sandbox: exec:", err)
	return 126
}

// readRules reads the rules from the inherited pipe "fd:N" and closes it, so the command does
// not inherit it.
func readRules(arg string) (Rules, error) {
	var r Rules
	n, ok := strings.CutPrefix(arg, "fd:")
	fd, err := strconv.Atoi(n)
	if !ok || err != nil || fd < 3 {
		return r, ErrUsage
	}
	f := os.NewFile(uintptr(fd), "sandbox-rules")
	defer f.Close()
	if err := json.NewDecoder(f).Decode(&r); err != nil {
		return r, err
	}
	return r, nil
}

// Landlock access rights by ABI version (the kernel refuses rights it does not know).
const (
	fsV1 = 1<<13 - 1 // execute … make_sym
	fsV2 = 1<<14 - 1 // + refer
	fsV3 = 1<<15 - 1 // + truncate
	fsV5 = 1<<16 - 1 // + ioctl_dev
	fsV9 = 1<<17 - 1 // + resolve_unix

	fileRights = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile | llsys.AccessFSTruncate | llsys.AccessFSIoctlDev
	readRights = llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir
)

func handledFS(abi int) uint64 {
	switch {
	case abi >= 9:
		return fsV9
	case abi >= 5:
		return fsV5
	case abi >= 3:
		return fsV3
	case abi >= 2:
		return fsV2
	}
	return fsV1
}

// rights is what a grant allows, before masking with what the ruleset handles.
func rights(g Grant) uint64 {
	const all = fsV9 &^ llsys.AccessFSResolveUnix
	switch g.Access {
	case AccessRW:
		return all
	case AccessRWNoRead:
		return all &^ (llsys.AccessFSReadFile | llsys.AccessFSExecute)
	case AccessListDir:
		return llsys.AccessFSReadDir
	case AccessDev:
		return llsys.AccessFSReadFile | llsys.AccessFSWriteFile | llsys.AccessFSIoctlDev | llsys.AccessFSReadDir
	case AccessSocket:
		return llsys.AccessFSResolveUnix | llsys.AccessFSReadFile
	}
	return readRights
}

// restrictLandlock applies the rules to the calling thread, which the caller keeps locked:
// no other thread of the process is restricted (the helper executes the command from this
// one). Rights the kernel's ABI lacks are left out, as go-landlock's best effort does; a
// kernel older than MinLandlockABI is refused.
func restrictLandlock(r Rules) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < MinLandlockABI {
		return fmt.Errorf("the Landlock ABI %d is too old (need %d): %v", abi, MinLandlockABI, err)
	}
	attr := llsys.RulesetAttr{HandledAccessFS: handledFS(abi), HandledAccessNet: llsys.AccessNetBindTCP | llsys.AccessNetConnectTCP}
	if r.LocalBinding {
		attr.HandledAccessNet &^= llsys.AccessNetBindTCP
	}
	if abi >= 6 {
		attr.Scoped = llsys.ScopeAbstractUnixSocket | llsys.ScopeSignal
	}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("creating the ruleset: %w", err)
	}
	defer unix.Close(fd)
	for _, g := range r.Grants {
		if err := addPathRule(fd, g, attr.HandledAccessFS); err != nil {
			return err
		}
	}
	if r.ProxyPort > 0 && r.ProxyPort < 1<<16 {
		if err := llsys.LandlockAddNetPortRule(fd, &llsys.NetPortAttr{AllowedAccess: llsys.AccessNetConnectTCP, Port: uint64(r.ProxyPort)}, 0); err != nil {
			return fmt.Errorf("the proxy port rule: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return llsys.LandlockRestrictSelf(fd, 0)
}

// addPathRule adds g to the ruleset. A path that is gone, or became a symlink since the plan
// (a rule would apply to its target), gets no rule: what it names stays unreachable.
func addPathRule(ruleset int, g Grant, handled uint64) error {
	pfd, err := unix.Open(g.Path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening %s: %w", g.Path, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", g.Path, err)
	}
	allowed := rights(g) & handled
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return nil
	default:
		allowed &= fileRights | llsys.AccessFSResolveUnix
	}
	if allowed == 0 {
		return nil
	}
	if err := llsys.LandlockAddPathBeneathRule(ruleset, &llsys.PathBeneathAttr{AllowedAccess: allowed, ParentFd: pfd}, 0); err != nil {
		return fmt.Errorf("the rule on %s: %w", g.Path, err)
	}
	return nil
}

// LandlockABI returns the kernel's Landlock ABI version, 0 when Landlock is unavailable, with
// why.
func LandlockABI() (int, error) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0, err
	}
	return v, nil
}
