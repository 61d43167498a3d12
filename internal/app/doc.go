// Package app assembles a Reins session from plain values, so that every front end (the
// CLI's -p and interactive mode, the SDK protocol, mcp serve) and a test or an embedder build
// the same session the same way.
//
// [New] takes [Options] (the working directory, the settings sources and permission flags, the
// provider, the session to restore or fork, the MCP configurations, limits) and returns an
// [App]: the settings and permissions, the model provider, the tool pool with the Agent tool
// and the MCP servers' tools, the hooks runner, the OS sandbox, the session file with the
// restored history, and the agent. Its order is the session's: the settings first (a broken
// deny rule or bypass as root stops here), then the session to restore (a bad id fails before
// anything starts), the provider, the session file and its results folder, the permissions,
// the agent definitions, the sandbox, the built-in tools and hooks, the MCP servers, the
// system prompt and the agent. A front end then chooses who answers asks ([App.WithHooks]
// around its Asker, set as the agent's), calls [App.StartSession], runs turns with
// [App.RunTurn] while it consumes the agent's events from the bus, and ends with [App.Close],
// which ends everything in order. Approvals that need a person before the session starts (the
// project's MCP servers) go through a [ProjectServerApprover] in the options.
//
// The parts are usable alone: [LoadSettings] for commands that only read the settings,
// [StartMCP], [NewPool] and [Catalog] for commands that list or run tools
// without a model, [SystemPrompt]; the model provider (provider.Resolve) and the OS sandbox
// (sessionsandbox.Start) are packages of their own beneath this one.
//
// It never imports cobra, internal/cli, internal/tui or internal/sdkproto: it takes no flags
// and prints nothing. Warnings and notes go to the [Reporter] of the options; errors are
// returned wrapped with context, and errors in how it was called are [UsageError]s, which a
// front end reports as such.
package app
