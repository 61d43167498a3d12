package confine

import (
	"errors"
	"syscall"
	"unsafe"
)

// Landlock's system calls and constants (include/uapi/linux/landlock.h); the numbers are the
// same on every architecture.
const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1
	landlockRulePathBeneath      = 1
	landlockRuleNetPort          = 2

	fsExecute     = 1 << 0
	fsWriteFile   = 1 << 1
	fsReadFile    = 1 << 2
	fsReadDir     = 1 << 3
	fsTruncate    = 1 << 14
	fsIoctlDev    = 1 << 15
	fsResolveUnix = 1 << 16

	netBindTCP    = 1 << 0
	netConnectTCP = 1 << 1

	scopeAbstractUnixSocket = 1 << 0
	scopeSignal             = 1 << 1

	oPath = 0x200000 // O_PATH
)

// Landlock access rights by ABI version (the kernel refuses rights it does not know).
const (
	fsV1 = 1<<13 - 1 // execute … make_sym
	fsV2 = 1<<14 - 1 // + refer
	fsV3 = 1<<15 - 1 // + truncate
	fsV5 = 1<<16 - 1 // + ioctl_dev
	fsV9 = 1<<17 - 1 // + resolve_unix

	fileRights = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev
	readRights = fsExecute | fsReadFile | fsReadDir
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
	const all = fsV9 &^ fsResolveUnix
	switch g.Access {
	case AccessRW:
		return all
	case AccessRWNoRead:
		return all &^ (fsReadFile | fsExecute)
	case AccessListDir:
		return fsReadDir
	case AccessDev:
		return fsReadFile | fsWriteFile | fsIoctlDev | fsReadDir
	case AccessSocket:
		return fsResolveUnix | fsReadFile
	}
	return readRights
}

type rulesetAttr struct{ handledFS, handledNet, scoped uint64 }

type pathBeneathAttr struct {
	allowed  uint64
	parentFD int32
	_        [4]byte // the kernel's struct is packed: it reads the first 12 bytes
}

type netPortAttr struct{ allowed, port uint64 }

// LandlockABI returns the kernel's Landlock ABI version, 0 when Landlock is unavailable, with
// why.
func LandlockABI() (int, error) {
	r, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// restrictLandlock applies the rules to the calling thread, which executes the command: no
// other thread of the process is restricted. Rights the kernel's ABI lacks are left out; a
// kernel older than MinLandlockABI is refused.
func restrictLandlock(r Rules) error {
	abi, err := LandlockABI()
	if err != nil || abi < MinLandlockABI {
		return errors.New("the Landlock ABI " + itoa(abi) + " is too old (need " + itoa(MinLandlockABI) + ")")
	}
	attr := rulesetAttr{handledFS: handledFS(abi), handledNet: netBindTCP | netConnectTCP}
	if r.LocalBinding {
		attr.handledNet &^= netBindTCP
	}
	if abi >= 6 {
		attr.scoped = scopeAbstractUnixSocket | scopeSignal
	}
	r0, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return errno
	}
	fd := int(r0)
	defer syscall.Close(fd)
	for _, g := range r.Grants {
		if err := addPathRule(fd, g, attr.handledFS); err != nil {
			return err
		}
	}
	if r.ProxyPort > 0 && r.ProxyPort < 1<<16 {
		port := netPortAttr{allowed: netConnectTCP, port: uint64(r.ProxyPort)}
		if _, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(fd), landlockRuleNetPort, uintptr(unsafe.Pointer(&port)), 0, 0, 0); errno != 0 {
			return errors.New("the proxy port rule: " + errno.Error())
		}
	}
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return errors.New("no_new_privs: " + err.Error())
	}
	if _, _, errno := syscall.Syscall(sysLandlockRestrictSelf, uintptr(fd), 0, 0); errno != 0 {
		return errno
	}
	return nil
}

// addPathRule adds g to the ruleset. A path that is gone, or became a symlink since the plan
// (a rule would apply to its target), gets no rule: what it names stays unreachable.
func addPathRule(ruleset int, g Grant, handled uint64) error {
	pfd, err := syscall.Open(g.Path, oPath|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err == syscall.ENOENT || err == syscall.ENOTDIR || err == syscall.EACCES {
		return nil
	}
	if err != nil {
		return errors.New("opening " + g.Path + ": " + err.Error())
	}
	defer syscall.Close(pfd)
	var st syscall.Stat_t
	if err := syscall.Fstat(pfd, &st); err != nil {
		return errors.New("stat " + g.Path + ": " + err.Error())
	}
	allowed := rights(g) & handled
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
	case syscall.S_IFLNK:
		return nil
	default:
		allowed &= fileRights | fsResolveUnix
	}
	if allowed == 0 {
		return nil
	}
	attr := pathBeneathAttr{allowed: allowed, parentFD: int32(pfd)}
	if _, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return errors.New("the rule on " + g.Path + ": " + errno.Error())
	}
	return nil
}
