package cmdutil

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
)

// DebugFlags are the root's --debug and --debug-file, shared by every command.
type DebugFlags struct {
	On   bool
	File string
}

func (d *DebugFlags) Register(root *cobra.Command) {
	root.PersistentFlags().BoolVar(&d.On, "debug", false, "write a debug log (what reins does, step by step) to standard error")
	root.PersistentFlags().StringVar(&d.File, "debug-file", "", "write the debug log to this file instead (implies --debug)")
}

// Open starts the debug log on f. The returned function closes it.
func (d *DebugFlags) Open(f *Factory) (func(), error) {
	if !d.On && d.File == "" {
		return func() {}, nil
	}
	// Standard error through a swapWriter: the chat moves the log off the terminal it draws.
	f.DebugErr = &SwapWriter{w: f.ErrOut}
	var w io.Writer = f.DebugErr
	closeFn := func() {}
	if d.File != "" {
		file, err := os.OpenFile(d.File, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("--debug-file: %w", err)
		}
		w, closeFn = file, func() { file.Close() }
		f.DebugErr = nil
	}
	f.Debug = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return closeFn, nil
}

// Debugf logs to the debug log when there is one.
func (f *Factory) Debugf(msg string, args ...any) {
	if f.Debug != nil {
		f.Debug.Debug(msg, args...)
	}
}
