// Package sandbox holds `reins sandbox status` and `reins doctor`, which say how a session
// here would confine Bash and which model API and credential source it would use.
package sandbox

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app/sessionsandbox"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/confine"
)

// SandboxHelper runs the sandbox's re-exec helpers: the reins binary is the program the
// backends start inside the sandbox. Package confine's init runs them before the rest of
// reins initialises; this is the same dispatch for a caller that reaches Main regardless.
// ok is false for any other command line.
func SandboxHelper(args []string) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case confine.BridgeArg:
		return confine.BridgeMain(args[1:]), true
	case confine.LandlockArg:
		return confine.LandlockMain(args[1:]), true
	}
	return 0, false
}

// sandboxOptions are where the sandbox finds the reins binary and its backend choice.
func sandboxOptions(f *cmdutil.Factory) sessionsandbox.Options {
	return sessionsandbox.Options{Executable: f.Executable, Getenv: f.Getenv}
}

func NewCmdSandbox(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Show how Bash commands are confined by the OS sandbox",
	}
	cmd.AddCommand(newCmdSandboxStatus(f, nil))
	return cmd
}

type statusOptions struct {
	f      *cmdutil.Factory
	perm   cmdutil.PermFlags
	asJSON bool
}

func newCmdSandboxStatus(f *cmdutil.Factory, runF func(*statusOptions) error) *cobra.Command {
	opts := &statusOptions{f: f}
	status := &cobra.Command{
		Use:     "status",
		Example: "  reins sandbox status\n  REINS_SANDBOX_BACKEND=landlock reins sandbox status --json",
		Short:   "Say which sandbox backend works here, the kernel's Landlock ABI, and what each sandbox rule became",
		Long: `Builds the sandbox the settings describe (whether or not it is on), and prints whether
it is on (by default, or by which setting, with its file:line:col), the backend that would
confine Bash commands, the kernel's Landlock ABI, and what each setting became: the writable folders, the protected paths, the read-denied paths, the allowed
domains. Exit status 1 when no backend works.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return statusRun(cmd.Context(), opts)
		},
	}
	status.Flags().BoolVar(&opts.asJSON, "json", false, "print one JSON object")
	opts.perm.Register(status)
	return status
}

func statusRun(ctx context.Context, opts *statusOptions) error {
	return runSandboxStatus(ctx, opts.f, &opts.perm, opts.asJSON)
}

// sandboxOnLine says whether Bash commands run sandboxed here and what decided it: the
// default, or the setting with its position; works says whether a backend works.
func sandboxOnLine(enabled bool, by string, works bool, why string) string {
	switch {
	case !enabled:
		return fmt.Sprintf("off (sandbox.enabled: false at %s): Bash commands run unconfined", by)
	case by == "default" && works:
		return "on by default (no settings file sets sandbox.enabled): Bash commands run confined"
	case by == "default":
		return "on by default, but no backend works here (" + why + "): sessions say so at start and run Bash commands unconfined"
	case works:
		return fmt.Sprintf("on (sandbox.enabled: true at %s): Bash commands run confined", by)
	}
	return fmt.Sprintf("on (sandbox.enabled: true at %s), but no backend works here (%s): sessions refuse to start", by, why)
}

type StatusReport struct {
	Enabled bool `json:"enabled"`
	// EnabledBy is "default" when no settings file sets sandbox.enabled, else the file:line:col
	// of the value that decides.
	EnabledBy   string                   `json:"enabledBy"`
	Policy      permission.SandboxPolicy `json:"policy"`
	LandlockABI int                      `json:"landlockABI"`
	LandlockErr string                   `json:"landlockError,omitempty"`
	Error       string                   `json:"error,omitempty"`
	Notes       []string                 `json:"notes,omitempty"`
	Status      *sandbox.Status          `json:"status,omitempty"`
}

func runSandboxStatus(ctx context.Context, f *cmdutil.Factory, pf *cmdutil.PermFlags, asJSON bool) error {
	env, err := pf.Load(f)
	if err != nil {
		return err
	}
	pc := env.Context
	rep := StatusReport{Enabled: pc.Sandbox().Enabled, EnabledBy: cmp.Or(env.Sandbox().EnabledAt(), "default"), Policy: pc.Sandbox()}
	if v, err := landlockABI(); err != nil {
		rep.LandlockErr = err.Error()
	} else {
		rep.LandlockABI = v
	}
	cfg, notes, err := sessionsandbox.Config(ctx, env.Sandbox(), pc, sandboxOptions(f))
	if err != nil {
		return err
	}
	rep.Notes = notes
	sb, err := sandbox.New(ctx, cfg)
	if err != nil {
		rep.Error = err.Error()
	} else {
		defer sb.Close()
		st := sb.Status()
		rep.Status = &st
	}
	if asJSON {
		if err := cmdutil.WriteJSON(f.Out, rep); err != nil {
			return err
		}
	} else {
		printSandboxStatus(f.Out, &rep)
	}
	if rep.Error != "" {
		return cmdutil.Finish(cmdutil.OutcomeFailed)
	}
	return nil
}

func printSandboxStatus(w io.Writer, r *StatusReport) {
	fmt.Fprintf(w, "sandbox: %s\n", sandboxOnLine(r.Enabled, r.EnabledBy, r.Status != nil, r.Error))
	fmt.Fprintf(w, "autoAllowBashIfSandboxed: %v  allowUnsandboxedCommands: %v", r.Policy.AutoAllowBash, r.Policy.AllowUnsandboxed)
	if len(r.Policy.ExcludedCommands) > 0 {
		fmt.Fprintf(w, "  excludedCommands: %s", strings.Join(r.Policy.ExcludedCommands, ", "))
	}
	fmt.Fprintln(w)
	if r.LandlockErr != "" {
		fmt.Fprintf(w, "Landlock: unavailable (%s)\n", r.LandlockErr)
	} else {
		fmt.Fprintf(w, "Landlock ABI: %d\n", r.LandlockABI)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.Status == nil {
		fmt.Fprintf(w, "backend: none works: %s\n", r.Error)
		return
	}
	st := r.Status
	fmt.Fprintf(w, "backend: %s\n", st.Backend)
	for _, rej := range st.Rejected {
		fmt.Fprintf(w, "  not used: %s\n", rej)
	}
	fmt.Fprintf(w, "proxy: 127.0.0.1:%d (HTTP CONNECT and SOCKS5; started for this report)\n", st.ProxyPort)
	fmt.Fprintln(w, "rules:")
	for _, rs := range st.Rules {
		line := "  " + rs.Setting
		if rs.Value != "" {
			line += " " + rs.Value
		}
		line += ": " + rs.Became
		if rs.Origin != "" {
			line += "  [" + rs.Origin + "]"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "enforcement:")
	for _, e := range st.Enforcement {
		fmt.Fprintln(w, "  "+e)
	}
}
