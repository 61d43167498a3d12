package app

import (
	"context"
	"strings"
	"time"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/settings"
)

// Bounds of one run of the status command: its line is for a glance, so a command that takes
// longer or says more is cut short.
const (
	StatusTimeout   = 5 * time.Second
	StatusMaxOutput = 64 << 10
)

// StatusLine is the session's status command, ready to run.
type StatusLine struct {
	// Setting is the statusLine that runs; nil when none does (Skipped says why when one is
	// set).
	Setting *settings.StatusLine
	Skipped string
	// Run runs the command with the session JSON on standard input and returns its output:
	// as a hook runs (the hooks' runner: the project folder, its own process group, killed
	// at StatusTimeout, output capped at StatusMaxOutput).
	Run func(ctx context.Context, input []byte) (string, error)
	// Close ends what the command left running, when the session's hooks runner does not.
	Close func()
}

// StatusLine returns the status command of the settings. A project's waits for trust and
// disableAllHooks turns it off, as for hooks (settings.Loaded.StatusLine).
func (a *App) StatusLine() StatusLine {
	sl, why := a.Settings.Loaded.StatusLine(a.Settings.Trusted)
	out := StatusLine{Setting: sl, Skipped: why, Close: func() {}}
	if sl == nil {
		return out
	}
	r := a.Ext.Hooks
	if r == nil {
		r, _ = hooks.NewRunner(nil)
		r.ProjectDir, r.SessionID, r.TranscriptPath = a.Cwd, a.Session.ID, a.transcriptPath()
		r.Env, r.Groups = a.Settings.Environ, a.opts.HookGroups
		out.Close = r.Close
	}
	command := sl.Command
	out.Run = func(ctx context.Context, input []byte) (string, error) {
		raw, err := r.Exec(ctx, command, input, StatusTimeout, StatusMaxOutput)
		if err != nil {
			return "", err
		}
		if raw.ExitCode != 0 {
			return "", &statusError{code: raw.ExitCode, stderr: strings.TrimSpace(raw.Stderr)}
		}
		return raw.Stdout, nil
	}
	return out
}

type statusError struct {
	code   int
	stderr string
}

func (e *statusError) Error() string { return "the status command failed: " + e.stderr }

// TranscriptPath is the session file's path ("" when nothing is saved).
func (a *App) TranscriptPath() string { return a.transcriptPath() }
