package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/bwrap"
	"github.com/reinsdev/reins/sandbox/landlock"
	"github.com/reinsdev/reins/settings"
)

// sandboxHelper runs the sandbox's re-exec helpers: the reins binary is the program the
// backends start inside the sandbox. ok is false for any other command line.
func sandboxHelper(args []string) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case bwrap.BridgeArg:
		return bwrap.BridgeMain(args[1:]), true
	case landlock.HelperArg:
		return landlock.HelperMain(args[1:]), true
	}
	return 0, false
}

// sandboxBackends are the backends to try, bubblewrap first (Claude Code's choice on Linux).
// REINS_SANDBOX_BACKEND=bubblewrap or landlock allows only that one.
func sandboxBackends(f *Factory) ([]sandbox.Backend, error) {
	switch b := f.Getenv("REINS_SANDBOX_BACKEND"); b {
	case "":
		return []sandbox.Backend{&bwrap.Backend{}, &landlock.Backend{}}, nil
	case "bubblewrap", "bwrap":
		return []sandbox.Backend{&bwrap.Backend{}}, nil
	case "landlock":
		return []sandbox.Backend{&landlock.Backend{}}, nil
	default:
		return nil, fmt.Errorf("REINS_SANDBOX_BACKEND=%q: want bubblewrap or landlock", b)
	}
}

// maxReadDenyWalk bounds how many entries are looked at to find the paths a Read deny
// pattern covers.
const maxReadDenyWalk = 50000

// sandboxConfig turns the settings and the permission context into the sandbox's
// configuration. Notes say what could not be carried over completely.
func sandboxConfig(ctx context.Context, f *Factory, env *permEnv, pc *permission.Context) (sandbox.Config, []string, error) {
	sb, _ := env.loaded.Sandbox(env.trusted)
	helper, err := f.Executable()
	if err != nil {
		return sandbox.Config{}, nil, fmt.Errorf("sandbox: locating the reins binary: %w", err)
	}
	backends, err := sandboxBackends(f)
	if err != nil {
		return sandbox.Config{}, nil, err
	}
	dirs, files := permission.ProtectedNames()
	cfg := sandbox.Config{
		WorkingDirs:       pc.WorkingDirs(),
		Home:              pc.Home(),
		ProtectedDirs:     dirs,
		ProtectedFiles:    files,
		ProtectedPaths:    pc.SettingsFiles(),
		AllowLocalBinding: sb.AllowLocalBinding,
		Helper:            helper,
		Backends:          backends,
	}
	toPaths := func(es []settings.SandboxEntry) []sandbox.Path {
		var out []sandbox.Path
		for _, e := range es {
			out = append(out, sandbox.Path{Path: e.Path, Origin: e.Origin})
		}
		return out
	}
	cfg.AllowWrite = toPaths(sb.AllowWrite)
	cfg.DenyWrite = toPaths(sb.DenyWrite)
	cfg.DenyRead = toPaths(sb.DenyRead)
	for _, e := range sb.AllowUnixSockets {
		cfg.AllowUnixSockets = append(cfg.AllowUnixSockets, e.Path)
	}
	for _, e := range sb.AllowedDomains {
		cfg.AllowedDomains = append(cfg.AllowedDomains, e.Value)
	}
	// WebFetch's domain rules speak for the network too, as in Claude Code.
	for _, b := range []permission.Behavior{permission.Allow, permission.Deny} {
		for _, r := range pc.ContentRules(b, "WebFetch") {
			d, ok := strings.CutPrefix(r.Value.Content, "domain:")
			if !ok || settings.CheckDomainPattern(d) != "" {
				continue
			}
			if b == permission.Allow {
				cfg.AllowedDomains = append(cfg.AllowedDomains, d)
			} else {
				cfg.DeniedDomains = append(cfg.DeniedDomains, d)
			}
		}
	}
	paths, notes := readDeniedPaths(ctx, pc)
	cfg.DenyRead = append(cfg.DenyRead, paths...)
	return cfg, notes, nil
}

// readDeniedPaths finds the existing paths the Read deny rules cover, for the sandbox to hide:
// it walks each rule's anchor folder (the working directories for patterns that match at any
// depth) and asks the permission context, so the patterns mean exactly what they mean to the
// Read tool. Files created later are not covered; the notes say where the walk stopped short.
func readDeniedPaths(ctx context.Context, pc *permission.Context) ([]sandbox.Path, []string) {
	var out []sandbox.Path
	var notes []string
	seen := map[string]bool{}
	for _, r := range pc.ContentRules(permission.Deny, "Read") {
		var bases []string
		if b := patternBase(r, pc); b != "" {
			bases = []string{b}
		} else {
			bases = pc.WorkingDirs()
		}
		walked := 0
		for _, base := range bases {
			_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if walked++; walked > maxReadDenyWalk {
					return fs.SkipAll
				}
				if pc.CheckRead(ctx, p).Behavior != permission.Deny {
					return nil
				}
				if !seen[p] {
					seen[p] = true
					out = append(out, sandbox.Path{Path: p, Origin: r.Describe()})
				}
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			})
		}
		if walked > maxReadDenyWalk {
			notes = append(notes, fmt.Sprintf("Read deny rule %s: only the first %d entries under %s were checked for the sandbox", r.Describe(), maxReadDenyWalk, strings.Join(bases, ", ")))
		}
	}
	return out, notes
}

// patternBase is the folder a Read rule's pattern is anchored in, down to its first component
// with a wildcard; "" for patterns that match at any depth below the working directory.
func patternBase(r *permission.Rule, pc *permission.Context) string {
	c := r.Value.Content
	var base string
	switch {
	case strings.HasPrefix(c, "//"):
		base, c = "/", c[2:]
	case c == "~" || strings.HasPrefix(c, "~/"):
		base, c = pc.Home(), strings.TrimPrefix(strings.TrimPrefix(c, "~"), "/")
	case strings.HasPrefix(c, "/"):
		base, c = r.Root, c[1:]
		if base == "" {
			base = pc.OriginalCwd()
		}
	default:
		return ""
	}
	for _, seg := range strings.Split(c, "/") {
		if seg == "" || strings.ContainsAny(seg, "*?[{\\") {
			break
		}
		base = filepath.Join(base, seg)
	}
	return base
}

// startSandbox builds the session's sandbox when the settings enable it; nil when they do not.
// An enabled sandbox that cannot run is an error: reins never falls back to running commands
// unconfined.
func startSandbox(ctx context.Context, f *Factory, env *permEnv, pc *permission.Context) (*sandbox.Sandbox, error) {
	if !pc.Sandbox().Enabled {
		return nil, nil
	}
	cfg, notes, err := sandboxConfig(ctx, f, env, pc)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		f.warn("%s", n)
	}
	sb, err := sandbox.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return sb, nil
}

// printViolations lists what the sandbox refused during the session.
func printViolations(w io.Writer, sb *sandbox.Sandbox) {
	if sb == nil {
		return
	}
	vs := sb.Violations()
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
	pc := env.pc
	rep := sandboxStatusReport{Enabled: pc.Sandbox().Enabled, Policy: pc.Sandbox()}
	if v, err := landlock.ABI(); err != nil {
		rep.LandlockErr = err.Error()
	} else {
		rep.LandlockABI = v
	}
	cfg, notes, err := sandboxConfig(ctx, f, env, pc)
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
