// Package checkpoint keeps the files a session's agent changes so that they can be put back:
// a shadow store outside the project, one point per user message, and a restore that never
// follows a link.
//
// # Capture
//
// Before a change, the caller names what may change ([Scope]: files, folders, or the whole of
// the working directories when the analysis cannot tell) and gets a [Pending]; after the
// change it calls [Pending.Done]. The store scans the scope before (hashing only what its stat
// cache cannot vouch for, and storing each content once, by its SHA-256) and after, and
// records in the point the state before the change — content, mode and existence — of every
// path whose state differs. Untracked and git-ignored files are captured like any other;
// `.git` folders are not scanned. What could not be captured is recorded as [Skipped] with
// its reason: larger than [Limits.MaxFileBytes], the store at [Limits.MaxTotalBytes], outside
// the working directories, or not a regular file (symlinks, devices, sockets, FIFOs).
//
// A Pending belongs to the point it was opened in, whatever point is current when it is done:
// a background task or a sub-agent's change belongs to the turn that started it. A Pending
// never done (a background command still running) is finished by the next [Store.Rewind].
//
// # Restore
//
// [Store.Rewind] to point k puts back, for every path changed at k or later, the state before
// the first of those changes. It walks from the file-system root one component at a time with
// O_NOFOLLOW, so a symlink anywhere on the way, or at the file itself, is never followed: such
// a file is counted in [Result.SkippedLinks] and left alone. Content is written to a new file
// in the real parent folder and renamed over the name, so another name of a hard-linked inode
// keeps its content. Nothing outside the working directories is written. A file whose state is
// not what the agent left (the person changed it since) is a [Result.Conflicts] entry: a dry
// run lists it, and a real rewind leaves it as it is unless [RewindOptions.Overwrite].
//
// After a real rewind the points after k are dropped and k holds nothing: the tree is what it
// was at k. That happens only when every file is back: a file that could not be put back (a
// full disk, an I/O error, a backup that no longer matches its hash) makes the rewind an
// [*IncompleteError] naming it, every point and backup stays, and a rewind to k again, once
// the cause is gone, finishes the job.
package checkpoint
