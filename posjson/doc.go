// Package posjson reads JSON configuration files keeping where everything was written, so
// that every problem in one is reported as file:line:col. It is what the readers of Reins'
// configuration (settings, MCP server lists, plugin manifests, front matter, agent
// definitions) share:
//
//   - [Error], the one positioned error type, whose text is "file:line:col: message";
//   - [Parse], a tree of [Value]s that keeps object members in written order with their
//     offsets, duplicates included, and writes back out changing only the layout;
//   - [Fields], the members of one object of a checked document with their offsets, without
//     building a tree of what they hold (for readers that want a few keys of a large file);
//   - [Lines], which turns a byte offset into a line and column;
//   - [DidYouMean] and [Suggest], for unknown keys.
//
// Syntax is always checked by encoding/json over the whole document first ([Check]), so a
// document is accepted or refused exactly as encoding/json would, and a syntax error's offset
// is the bad byte's. Offsets are bytes from the document's start; lines and columns are
// 1-based and columns count bytes, as the Go toolchain's positions do.
//
// The package imports only the standard library: the pure core may use it.
package posjson
