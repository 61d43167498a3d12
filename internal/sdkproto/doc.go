// Package sdkproto speaks the Claude Agent SDK's wire protocol, so that the SDKs (TypeScript,
// Python) can drive reins as their CLI: NDJSON on standard input and output, one JSON object per
// line.
//
// # Input
//
// The caller writes `user` messages (one conversation turn each), `control_request`s (initialize,
// interrupt, set_permission_mode, set_model, get_settings, mcp_status), `control_response`s
// answering the requests reins sent it, and `control_cancel_request`s. Every request carries a
// request_id that its response echoes. A request with a subtype reins does not implement gets an
// error response naming the subtype; a line that is not a JSON object, or has no known type, is
// reported on the log and skipped: it never ends the session and never answers a pending
// request.
//
// # Turns
//
// [Server.Serve] runs one process-long conversation: user messages are queued and run one at a
// time, in order, each ending with exactly one `result` line. An `interrupt` aborts the running
// turn under the agent's abort contract (running calls see their context cancelled and the
// agent waits for them), and the turn still ends with its result. End of input is not an abort:
// the queued turns run to their end, then Serve returns. A `can_use_tool` request still open at
// end of input is answered deny, since nobody is left to answer it.
//
// # Permission asks
//
// [Asker] is the permission.Asker of `--permission-prompt-tool stdio`: every ask of the engine
// becomes a `can_use_tool` request, and the answer is a decision. [ToolAsker] is the one of
// `--permission-prompt-tool mcp__server__tool`: it calls that tool with Claude Code's input and
// reads the same answer from its text. Both fail closed: an answer that is not a well-formed
// allow is a deny. An allow that substitutes the input (`updatedInput`) is checked again by the
// engine's rule-based steps, so a deny rule or a safety check still stops the substituted call;
// `updatedPermissions` are applied through agent.Permissions (session rules in memory, the
// settings-file destinations persisted).
//
// # Hook callbacks and elicitation
//
// [Server.HookCallbacks] turns initialize's hooks into hooks.Hook values whose [hooks.Handler]
// sends `hook_callback` to the caller and hands its JSON answer back as a command hook's
// standard output, so it is ranked by the same code (a hook's allow never outranks a deny
// rule). [Server.Elicit] puts an MCP server's request for input to the caller as an
// `elicitation` request; only a well-formed accept carries content.
//
// # In-process MCP servers
//
// The servers initialize names in sdkMcpServers live in the caller's process. Once initialize
// is answered [Handlers.ConnectSDKMCP] starts them (their handshake needs the reader that
// initialize holds) and the next turn waits for it; an error there makes every turn an error
// result. [Server.SendMCP] carries one JSON-RPC message to a server as an `mcp_message`
// request whose answer holds the server's reply; the caller's own `mcp_message` requests (what
// the server sends unasked) go to [Handlers.MCPMessage] and are acknowledged with an empty
// success.
//
// # Output
//
// [Emitter] turns the agent's events into the SDK's message shapes (system/init, assistant,
// user with tool_use_result, system/permission_denied, stream_event, result); the `-p`
// stream-json and json output use it too, so there is one definition of every line.
package sdkproto
