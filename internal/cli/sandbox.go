package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
)

// sandboxOptions are where the sandbox finds the reins binary and its backend choice.
func sandboxOptions(f *Factory) app.SandboxOptions {
	return app.SandboxOptions{Executable: f.Executable, Getenv: f.Getenv}
}

// printViolations lists what the sandbox refused during the session.
func printViolations(w io.Writer, vs []sandbox.Violation) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintf(w, "reins: the sandbox refused %d operation(s) this session:\n", len(vs))
	for _, v := range vs {
		fmt.Fprintf(w, "  %s  (command: %s)\n", v.What, truncate(v.Command, 80))
	}
}

func newCmdSandbox(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Show how Bash commands are confined by the OS sandbox",
	}
	var pf permFlags
	var asJSON bool
	status := &cobra.Command{
		Use:     "status",
		Example: "  reins sandbox status\n  REINS_SANDBOX_BACKEND=landlock reins sandbox status --json",
		Short:   "Say which sandbox backend works here, the kernel's Landlock ABI, and what each sandbox rule became",
		Long: `Builds the sandbox the settings describe (whether or not sandbox.enabled is set), and
prints the backend that would confine Bash commands, the kernel's Landlock ABI, and what each
setting became: the writable folders, the protected paths, the read-denied paths, the allowed
domains. Exit status 1 when no backend works.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSandboxStatus(cmd.Context(), f, &pf, asJSON)
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	pf.register(status)
	cmd.AddCommand(status)
	return cmd
}

type sandboxStatusReport struct {
	Enabled     bool                     `json:"enabled"`
	Policy      permission.SandboxPolicy `json:"policy"`
	LandlockABI int                      `json:"landlockABI"`
	LandlockErr string                   `json:"landlockError,omitempty"`
	Error       string                   `json:"error,omitempty"`
	Notes       []string                 `json:"notes,omitempty"`
	Status      *sandbox.Status          `json:"status,omitempty"`
}

func runSandboxStatus(ctx context.Context, f *Factory, pf *permFlags, asJSON bool) error {
	env, err := pf.load(f)
	if err != nil {
		return err
	}
	pc := env.Context
	rep := sandboxStatusReport{Enabled: pc.Sandbox().Enabled, Policy: pc.Sandbox()}
	if v, err := landlockABI(); err != nil {
		rep.LandlockErr = err.Error()
	} else {
		rep.LandlockABI = v
	}
	cfg, notes, err := app.SandboxConfig(ctx, env, pc, sandboxOptions(f))
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
		if err := writeJSON(f.Out, rep); err != nil {
			return err
		}
	} else {
		printSandboxStatus(f.Out, &rep)
	}
	if rep.Error != "" {
		return finish(outcomeFailed)
	}
	return nil
}

func printSandboxStatus(w io.Writer, r *sandboxStatusReport) {
	on := "disabled (sandbox.enabled is not set): Bash commands run unconfined"
	if r.Enabled {
		on = "enabled: Bash commands run confined"
	}
	fmt.Fprintf(w, "sandbox: %s\n", on)
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
