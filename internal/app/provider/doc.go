// Package provider resolves the model API and model a session talks to, from, in order, the
// caller's choice (flags), the settings ("provider", "model", "smallModel", apiKeyHelper), the
// environment (Claude Code's variables and cloud switches) and a local Ollama; and it makes
// the HTTP client, retry policy and fallback model the requests go through.
//
// [Resolve] runs no apiKeyHelper (the helper runs at the first request, or at
// [Provider.CheckCredential] for `reins doctor`) and calls no model: the network it may touch
// is the Ollama server (OLLAMA_HOST, local by default), probed when nothing names a provider
// and asked for its models when no model is named, and the clouds' credential chains for
// Bedrock and Vertex. An error in what was asked for (an unknown provider, an OpenAI-compatible
// server without a model) is a usage.Error, which the CLI reports as a usage error.
//
// It is the session assembly's (internal/app) and knows no session, tool or front end.
package provider
