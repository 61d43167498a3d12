package app

import (
	"context"

	"github.com/reinsdev/reins/internal/app/sessionsandbox"
	"github.com/reinsdev/reins/permission"
)

// Asking about hosts. A sandboxed command that connects to a host no allowed domain admits is
// held by the sandbox's proxy while the session's asker is asked (permission.NetworkAsk), the
// same Asker that answers the main agent's tool calls: the chat's dialog, the SDK caller's
// can_use_tool, a permission-prompt tool, PermissionRequest hooks. A headless run with none of
// them denies, as before. The WebFetch domain rules of the moment decide first: a deny rule
// refuses without asking, an allow rule — one an earlier "always" added — lets it through.

// askHost is the sandbox's AskHost for the session.
func (a *App) askHost(ctx context.Context, host string, port int) bool {
	if a.Permissions == nil {
		return false
	}
	pc := a.Permissions.Context()
	if r := pc.NetworkRule(host, sessionsandbox.DomainCovers); r != nil && r.Behavior != permission.Ask {
		return r.Behavior == permission.Allow
	}
	// dontAsk never asks; with no one to ask the asker denies.
	if pc.Mode() == permission.ModeDontAsk {
		return false
	}
	req := permission.NetworkAsk(host, port)
	d, err := parentAsker{a}.Ask(ctx, req)
	return err == nil && permission.NetworkAnswerAllows(req, d)
}
