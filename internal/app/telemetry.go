package app

import (
	"cmp"
	"context"
	"runtime/debug"

	"github.com/reinsdev/reins/telemetry"
)

// startTelemetry starts the session's telemetry when the environment turns it on (nil when
// off). A bad variable fails the session: a person who asked for telemetry and got none would
// not know.
func (a *App) startTelemetry(ctx context.Context) error {
	cfg, err := telemetry.FromEnv(a.opts.Getenv)
	if err != nil {
		return &UsageError{Err: err}
	}
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = cmp.Or(bi.Main.Version, version)
	}
	a.Telemetry, err = telemetry.Start(ctx, cfg, telemetry.Options{
		Version:   version,
		SessionID: a.Session.ID,
		Provider:  a.Provider.Name,
		// The signed policy bundle's version ("" for none) is stamped on every decision.
		PolicyVersion: a.Settings.PolicyVersion,
		Getenv:        a.opts.Getenv,
	})
	if err != nil {
		return err
	}
	a.Telemetry.SessionStarted(ctx)
	return nil
}

// stopTelemetry sends what is queued, within telemetry.DefaultShutdownTimeout, and says what
// could not be sent: in the debug log always, as a warning when something was lost.
func (a *App) stopTelemetry() {
	if a.Telemetry == nil {
		return
	}
	r := a.Telemetry.Shutdown(context.Background())
	if a.opts.Debug != nil {
		a.opts.Debug.Debug("telemetry", "report", r.String())
	}
	if r.Lost() {
		a.opts.Report.warn("%s", r.String())
	}
}
