// Package tui is Reins' interactive mode: a full-screen chat over the same [agent.Agent] a
// headless run uses.
//
// The UI is an adapter, not a second loop. It subscribes to the agent's event [agent.Bus] to
// draw the conversation (streamed text, tool cards with live progress, results) and it is the
// run's [permission.Asker]: every ask the engine cannot settle becomes a dialog, and the
// person's answer goes back to the engine as a decision. Everything the person grants is
// applied through [agent.Permissions.Update], so it is recorded with the session and, for
// settings-file destinations, written to the file the dialog names.
//
// # Contract with the agent
//
//   - One turn runs at a time, on its own goroutine, with a context the UI cancels on Esc.
//     The agent's abort contract answers every pending call; the UI only waits for the turn to
//     return and keeps the conversation it reports.
//   - An ask is a request/response over a channel into the Bubble Tea program. When the turn's
//     context ends while a dialog is open, the dialog is withdrawn and the ask returns the
//     context's error, which the agent turns into cancelled results.
//   - Bubble Tea, Lip Gloss and Glamour types stay in this package; [Run] takes and returns
//     only Reins types.
//
// # Shape
//
// The chat is a few small models under [Model]: the input (inputBox), the transcript's window
// (scrollback, a bubbles viewport), and the overlays that take the input's place, one type
// each with its own Update and View (permissionPrompt, planApproval, questionPrompt, the MCP
// form, menu, rewindPicker; overlay.go). The model hands the active overlay the keys instead
// of switching over them. Every key of the chat is a binding of one key map (keys.go), from
// which /help's key lines and the status line's hints are generated.
//
// Only the visible part of the transcript is rendered: each entry caches its lines for the
// current width, and a frame renders entries from the bottom until the screen is full, so the
// cost of a frame does not grow with the length of the session. The viewport is given only
// those lines (and a screen more above them when a page key scrolls).
package tui
