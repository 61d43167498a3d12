package chatview

import (
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/tui"
)

// StatusLine is the settings' status command for the chat; nil when none runs (a warning
// says why when one is set but may not run).
func StatusLine(f *cmdutil.Factory, a *app.App) (*tui.StatusCommand, func()) {
	sl := a.StatusLine()
	if sl.Skipped != "" {
		f.Warn("%s", sl.Skipped)
	}
	if sl.Setting == nil {
		return nil, sl.Close
	}
	return &tui.StatusCommand{Run: sl.Run, Padding: sl.Setting.Padding, Version: cmdutil.BuildVersion(), TranscriptPath: a.TranscriptPath(),
		ProjectDir: a.Cwd, OutputStyle: "default"}, sl.Close
}
