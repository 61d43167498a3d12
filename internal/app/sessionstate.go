package app

import (
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/tool"
)

// A continued session (--continue, --resume, the SDK's resume, the chat's /resume) goes on as
// it was: its context accounting starts from the usage the API reported for its last reply,
// and the model knows the files its conversation read and wrote, as they were then, so that
// Edit and Write work on them without a new Read and still refuse a file changed since.

// restoreSessionState gives the agent and the tools what the restored session t knew.
func (a *App) restoreSessionState(t *session.Transcript) {
	if t == nil {
		return
	}
	// Measured 0 (none recorded) leaves the conversation to the estimate.
	a.Agent.RestoreUsage(t.Usage, t.Measured)
	a.Pool.Env.Files.Replace(t.Files())
}

// recordFiles makes the session file record every change of what the model knows of files.
// A line that cannot be written is lost, which fails closed: a continued session that does
// not know a file asks for a Read, and one that still knows a file changed since refuses to
// edit it.
func (a *App) recordFiles() {
	a.Pool.Env.Files.SetNotify(func(p string, r *tool.FileRead) {
		a.recMu.Lock()
		w := a.Recorder
		a.recMu.Unlock()
		if w != nil {
			_ = w.AppendFileState(p, r)
		}
	})
}
