package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
)

// debugFlags are the root's --debug and --debug-file, shared by every command.
type debugFlags struct {
	on   bool
	file string
}

func (d *debugFlags) register(root *cobra.Command) {
	root.PersistentFlags().BoolVar(&d.on, "debug", false, "write a debug log (what reins does, step by step) to standard error")
	root.PersistentFlags().StringVar(&d.file, "debug-file", "", "write the debug log to this file instead (implies --debug)")
}

// open starts the debug log on f. The returned function closes it.
func (d *debugFlags) open(f *Factory) (func(), error) {
	if !d.on && d.file == "" {
		return func() {}, nil
	}
	// Standard error through a swapWriter: the chat moves the log off the terminal it draws.
	f.debugErr = &swapWriter{w: f.ErrOut}
	var w io.Writer = f.debugErr
	closeFn := func() {}
	if d.file != "" {
		file, err := os.OpenFile(d.file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("--debug-file: %w", err)
		}
		w, closeFn = file, func() { file.Close() }
		f.debugErr = nil
	}
	f.Debug = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return closeFn, nil
}

// debugf logs to the debug log when there is one.
func (f *Factory) debugf(msg string, args ...any) {
	if f.Debug != nil {
		f.Debug.Debug(msg, args...)
	}
}
