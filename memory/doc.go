// Package memory finds and reads the memory files: the Markdown instructions people write for
// a coding agent (CLAUDE.md, AGENTS.md) and that go into the model's system prompt.
//
// # Discovery
//
// [Loader.Load] reads, in this order (a later file can refine an earlier one):
//
//	managed  <managed folder>/CLAUDE.md, then AGENTS.md, for each managed settings folder
//	         ($REINS_MANAGED_DIR, or /etc/reins then /etc/claude-code)
//	user     $REINS_CONFIG_DIR/AGENTS.md (~/.reins), then $CLAUDE_CONFIG_DIR/CLAUDE.md (~/.claude)
//	project  for each folder from the project root down to the working directory:
//	         CLAUDE.md, .claude/CLAUDE.md, AGENTS.md, then CLAUDE.local.md (source local)
//
// The project root is the top of the git work tree holding the working directory (the first
// folder upwards with a .git entry); outside a git work tree it is the working directory
// itself. Claude Code walks up to the file-system root; Reins stops at the repository so that a
// CLAUDE.md in a shared parent such as /tmp never reaches the prompt.
//
// Memory files in folders below the working directory are read when the agent first works
// there: [Loader.Nested] takes a path a tool call touched and returns, once, the memory files of
// every folder between the working directory and that path.
//
// # Imports
//
// A line may import another file with @path: relative to the importing file, ~/ for the home
// folder, or absolute. An @ counts only at the start of a line or after white space (so an
// e-mail address is no import) and never inside a code span or a fenced or indented code block.
// The imported file follows its importer in the list. Imports nest [MaxImportDepth] deep; a file
// already read (a cycle, or a file reached twice, through symlinks too) is read once.
//
// A project's memory (project and nested files and their imports) may reach only files inside
// the project root, symlinks resolved, unless the project is trusted; a trusted project may also
// import files from elsewhere, as Claude Code allows after its approval.
//
// An import is a read, and meets the session's Read rules through [Options.Access]: a file a
// Read deny rule covers is left out, and so is one an ask rule covers, since no one is there to
// answer while memory loads; the warning names the rule. A project's own memory files meet them
// too; the person's and the organization's discovered files are what memory is, and only their
// imports do. A project's memory may not import a file of secrets at all. The person's and the
// organization's memory may, and each such read is reported to Access, which records it in the
// session's taint as a Read of the file would be.
//
// # Limits
//
// Every file is read through package boundedfile: regular files only (a FIFO, a device, a
// socket or a folder is refused without blocking), at most [MaxFileBytes] each and
// [MaxTotalBytes] and [MaxFiles] for everything one Loader reads, its nested files included. A
// file over a limit, unreadable, binary or refused is left out with a [Warning] naming it and,
// for an import, the line and column of the @; nothing is truncated silently.
//
// # Trust
//
// An untrusted project's memory is text a repository's authors put in front of the model. It is
// loaded (reading the project is what the agent is for), but [File.Untrusted] marks it and
// [Render] frames it apart: as information about the project that overrides nothing and grants
// nothing. The permission engine is unaffected by memory either way: no memory file can allow a
// tool call.
package memory
