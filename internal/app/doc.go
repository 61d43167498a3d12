// Package app assembles a Reins session from plain values, so that every front end (the
// CLI's -p and interactive mode, the SDK protocol, mcp serve) and a test or an embedder build
// the same session the same way: the tool pool with the Agent tool ([NewPool],
// [Pool.AddAgentTool], [Catalog] for commands that list or decide calls without a model) and
// the system prompt ([SystemPrompt]).
//
// It never imports cobra, internal/cli, internal/tui or internal/sdkproto: it takes no flags
// and prints nothing. What it cannot do is an error wrapped with context; errors in how it was
// called are [UsageError]s, which a front end reports as such.
package app
