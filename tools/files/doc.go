// Package files holds Reins' file tools: Read, Edit, Write and NotebookEdit, with the inputs,
// behaviour and messages of Claude Code's tools of the same names.
//
// # Contract
//
// [Tools] (or [NewRead], [NewEdit], [NewWrite], [NewNotebookEdit]) returns tools built with
// [tool.Build]. They need from the [tool.Env] of a call:
//
//   - Permissions: the permission context. Relative paths resolve against its current working
//     directory; Read's permission check is [permission.Context.CheckRead], the others'
//     [permission.Context.CheckWrite]. ValidateInput refuses paths a deny rule covers before
//     the permission step runs.
//   - Files: the file-state cache. Read records what it saw (modification time, a SHA-256 of
//     the whole content when the whole file was read, the line range, and whether the view was
//     partial, and the inode change time). Edit, Write and NotebookEdit refuse a file that was
//     not read, and one that changed since it was read: after a whole read the content digest
//     decides, so a change whose mtime was set back is still seen; after a partial read a newer
//     mtime or a different change time is a change. Write and NotebookEdit also refuse a
//     partial read. With
//     DryRun set these two checks pass, and every other check still runs.
//
// Read streams: it never holds more of a file in memory than the lines it returns (bounded by
// the token limit) plus a fixed buffer, so reading lines near the end of a file of many
// gigabytes costs one sequential scan and little memory.
//
// Edit, Write and NotebookEdit write atomically: the new content goes to a temporary file in
// the same directory, which is synced and then renamed over the target, so a crash leaves
// either the old file or the new one, never half of either. They keep the file's mode, owner,
// encoding (UTF-8, or UTF-16LE with a byte-order mark), UTF-8 byte-order mark and, for Edit,
// its line endings; a symbolic link is followed and its target written. A file with more than
// one hard link is written in place instead, so that every name keeps seeing one file; that
// write is synced but not atomic.
package files
