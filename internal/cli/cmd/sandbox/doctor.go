package sandbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/app/provider"
	"github.com/reinsdev/reins/internal/app/sessionsandbox"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/sandbox"
)

type doctorOptions struct {
	f            *cmdutil.Factory
	provider     string
	model        string
	settingsFile string
}

// NewCmdDoctor is `reins doctor`: what a session started here would talk to and with which
// credential — its source, never its value. An apiKeyHelper in use is run once, so a broken
// one is found before a session; its failure makes the command fail.
func NewCmdDoctor(f *cmdutil.Factory, runF func(*doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{f: f}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show the model API, model and credential source a session here would use (never the secret)",
		Long: `Doctor resolves the model provider as a session started in this folder would: the provider,
the model, the base URL, and where the credential comes from (ANTHROPIC_AUTH_TOKEN,
ANTHROPIC_API_KEY, an apiKeyHelper with the settings file and position that set it,
OPENAI_API_KEY, or none). A credential is never printed. An apiKeyHelper in use is run
once to check that it prints a key; if it fails, doctor prints why and exits 1. It also says
whether Bash commands would run in the OS sandbox: on by default or by which setting, and the
backend that works here; when none works it says so, and exits 1 if a setting asked for the
sandbox (a session would refuse to start).`,
		Args:    cobra.NoArgs,
		Example: "  reins doctor\n  reins doctor --provider anthropic --model opus",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.provider, "provider", "", "the provider a session would be given: anthropic, openai or ollama")
	fl.StringVar(&opts.model, "model", "", "the model a session would be given")
	fl.StringVar(&opts.settingsFile, "settings", "", "a settings file, or inline settings JSON")
	return cmd
}

func doctorRun(ctx context.Context, opts *doctorOptions) error {
	f := opts.f
	cwd, err := cmdutil.WorkDir(f)
	if err != nil {
		return err
	}
	s, err := app.LoadSettings(app.SettingsOptions{Cwd: cwd, Getenv: f.Getenv, File: opts.settingsFile})
	if err != nil {
		return err
	}
	getenv := app.ApplyEnv(s, f.Getenv)
	p, err := provider.Resolve(ctx, provider.Options{Provider: opts.provider, Model: opts.model,
		Settings: s.Loaded, Getenv: getenv, Trusted: s.Trusted, Dir: s.Context.OriginalCwd(), Groups: f.HookGroups()})
	if err != nil {
		return err
	}
	checkErr := p.CheckCredential(ctx)
	if err := printDoctor(f.Out, p, s.Trusted, checkErr); err != nil {
		return err
	}
	printEnv(f.Out, s)
	if err := printSandboxDoctor(ctx, f, s); err != nil {
		return err
	}
	return checkErr
}

// printSandboxDoctor says whether a session here would run Bash commands in the OS sandbox, by
// building the sandbox the settings describe. An explicitly enabled sandbox that no backend
// can run is the error: a session would refuse to start.
func printSandboxDoctor(ctx context.Context, f *cmdutil.Factory, s *app.Settings) error {
	by := cmp.Or(s.Sandbox().EnabledAt(), "default")
	if !s.Context.Sandbox().Enabled {
		fmt.Fprintf(f.Out, "%-11s %s\n", "sandbox", sandboxOnLine(false, by, false, ""))
		return nil
	}
	cfg, _, err := sessionsandbox.Config(ctx, s.Sandbox(), s.Context, sandboxOptions(f))
	if err != nil {
		return err
	}
	sb, err := sandbox.New(ctx, cfg)
	if err == nil {
		defer sb.Close()
		fmt.Fprintf(f.Out, "%-11s %s (%s)\n", "sandbox", sandboxOnLine(true, by, true, ""), sb.Backend())
		return nil
	}
	fmt.Fprintf(f.Out, "%-11s %s\n", "sandbox", sandboxOnLine(true, by, false, err.Error()))
	if errors.Is(err, sandbox.ErrUnavailable) && by == "default" {
		return nil
	}
	return cmdutil.Finish(cmdutil.OutcomeFailed)
}

// printEnv lists the variables the settings set for a session here, each with the file and
// position that set it (values are not shown: a token may be among them), and those an
// untrusted project's files would set once trusted.
func printEnv(w io.Writer, s *app.Settings) {
	for _, v := range s.EnvVars {
		fmt.Fprintf(w, "%-11s %s from %s (%s)\n", "env", v.Name, v.Origin(), v.Source)
	}
	for _, v := range app.UntrustedEnv(s) {
		fmt.Fprintf(w, "%-11s %s from %s not applied: the project is not trusted\n", "env", v.Name, v.Origin())
	}
}

// printDoctor writes the report: one "name  value" line each, notes after.
func printDoctor(w io.Writer, p *provider.Provider, trusted bool, checkErr error) error {
	var b strings.Builder
	line := func(name, value string) { fmt.Fprintf(&b, "%-11s %s\n", name, value) }
	line("provider", p.Name)
	line("model", p.Model)
	line("base URL", cmp.Or(p.BaseURL, "(the provider's own API)"))
	line("credential", p.Credential)
	if strings.HasPrefix(p.Credential, "apiKeyHelper") {
		if checkErr == nil {
			line("", "the helper ran and printed a key")
		} else {
			line("", "the helper failed (below)")
		}
	}
	if len(p.Headers) > 0 {
		line("headers", strings.Join(p.Headers, ", ")+" (ANTHROPIC_CUSTOM_HEADERS; values not shown)")
	}
	line("project", map[bool]string{true: "trusted", false: `not trusted (its apiKeyHelper and hooks do not run; "reins trust" trusts it)`}[trusted])
	for _, n := range p.CredentialNotes {
		line("note", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
