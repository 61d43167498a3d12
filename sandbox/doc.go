// Package sandbox confines Bash commands with the operating system, so that what a command
// can touch no longer depends on the Bash analysis predicting it right.
//
// A [Sandbox] is one session's sandbox: the policy (which paths a command may read and write,
// which hosts it may reach), the loopback proxy that is a sandboxed command's only way out to
// the network (package sandbox/proxy), and the [Backend] that enforces the rest: bubblewrap
// (sandbox/bwrap: mount and network namespaces) or Landlock (sandbox/landlock: the kernel's
// access-control rules, applied by a re-exec of the reins binary). [New] fails when no backend
// works, so an enabled sandbox never silently runs commands unconfined.
//
// The contract with callers is [Sandbox.Wrap]: it rewrites an *exec.Cmd that would run a shell
// so that it runs confined, and returns a function to call once the command has ended, which
// reports the violations (refused hosts, refused writes) to put in the tool result. The Bash
// tool's foreground and background commands use it, and hooks' commands can.
//
// The package never decides whether a call may run; that is the permission engine's pipeline
// (step 1b's auto-allow reads only the permission.SandboxPolicy of the settings).
package sandbox
