// Package client is Reins' MCP client: an adapter over the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) that turns configured servers into tools of the
// pool. No SDK type leaves the package.
//
// # Configuration
//
// [Load] finds servers in Claude Code's formats and places (the project's .mcp.json,
// ~/.reins.json and ~/.claude.json, per-project entries there, --mcp-config) and decides for
// each whether it may start ([Entry.State]): project servers need the project trusted and an
// approval from a source the repository cannot write; managed allowedMcpServers /
// deniedMcpServers apply to all. Every file is parsed with positions: a problem is a
// [*ParseError] naming file:line:col, never a silently dropped server or deny.
// [ServerConfig.Expanded] replaces ${VAR} and ${VAR:-default}.
//
// # Sessions
//
// [Start] connects to every ready server in parallel (stdio in its own process group, streamable
// HTTP, SSE), each bounded by the start timeout, and never fails: a server that cannot start is
// a [Status] with the reason. A stdio server that crashes is restarted once; calls that arrive
// meanwhile wait for the restart, and a call the crash cut off is an error result that says it
// may have run. [Manager.Close] ends every session and kills the stdio process groups.
//
// The Agent SDK caller's in-process servers (type sdk) join a live Manager with
// [Manager.AddSDK]: a go-sdk transport hands each message to an [SDKHost], which carries it over
// the caller's pipes, and [Manager.DeliverSDK] takes what the caller sends back. They have the
// timeouts of every server and no restart (the server is the caller's).
//
// # Tools
//
// [Manager.Tools] returns each server's tools as tool.Tool named mcp__<server>__<tool> — or,
// when that is over the API's 64 characters or another tool's name too, a name cut to fit and
// ended with a hash of the server's and tool's names ([Status.Renamed]; deny and ask rules for
// the plain name still apply). The input schema is enforced in full before a call (a schema
// whose validation could loop or explode leaves the tool out), annotations map onto the tool contract with
// fail-closed defaults, results are mapped to tool results and cut at the output limit, and the
// tools are deferrable (tools/toolsearch decides). Servers with resources add
// ListMcpResourcesTool and ReadMcpResourceTool.
//
// # Pins
//
// Every MCP tool implements permission.Pinned: an allow rule applies to it only while the
// tool's definition hashes to what [Pins] recorded when that rule first let it run, so a
// server that changes a tool after it was allowed (a rug-pull) meets an ask again, traced by
// the engine at its tool-wide allow step.
//
// # Elicitation
//
// A server's request for input goes to an [Elicitor] (the interactive and SDK front ends);
// with none, Reins declines and the call's result tells the model.
package client
