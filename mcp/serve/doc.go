// Package serve exposes Reins' built-in tools to any MCP client (an IDE, another agent, a
// desktop app) as an MCP server, with every call going through the permission engine.
//
// # Contract
//
// The tool list is fixed when the [Server] is built: the tools of one [Toolset] built from the
// configured permission context, each with its input schema, a title and annotations derived
// from the tool contract (see [Annotations]). Annotations are hints for display; they decide
// nothing.
//
// Each client connection is a session of its own: its own Toolset (so its own shell, file
// state for read-before-edit and background tasks), its own session rules and mode, and its
// own [permission.Engine]. Nothing one client is granted reaches another.
//
// Every tools/call takes the steps the agent loop takes: schema validation, the tool's own
// ValidateInput, [permission.Engine.Authorize], the call. An ask goes to an Asker: the client
// through elicitation when it declares that capability ([elicitAsker], choices once / for this
// session / deny), else [refuseAsker], whose deny carries the ask message and how to grant the
// call. A deny is a tool error result naming the rule or reason; it is never a protocol
// error, so the calling model sees it.
//
// A call runs under the request's context: notifications/cancelled from the client (or the
// connection closing) cancels it, and the tools stop what they started (Bash kills its
// process group).
//
// When the client declares roots, the session's working directories are the client's roots
// intersected with the configured ones ([permission.Context.Within]): a root outside every
// configured directory is refused and logged, and a client none of whose roots fits gets
// every call refused. A client that declares roots but lists none keeps the configured
// directories. The roots are read at the first call and again after
// notifications/roots/list_changed.
//
// The server writes nothing but protocol messages to its transport; logs go to the
// [slog.Logger] of [Options].
package serve
