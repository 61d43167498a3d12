// Package audit keeps Reins' tamper-evident record of what the agents did: every permission
// decision and every tool run with its outcome, appended to a local log of JSON lines.
//
// # The chain
//
// Each line is one [Entry]. Its Seq counts every entry the log ever held, from 1, across
// rotated files, and its Prev is the SHA-256 (hex) of the exact bytes of the line before it
// (without the newline); the first entry of a new log has [Genesis]. A changed, removed,
// inserted or reordered line therefore breaks the link of the line after it. The last lines
// have no line after them: the anchor file (audit.jsonl.anchor beside the log) records,
// overwritten after every append, the Seq and hash of the head and where the retained chain
// begins. [Verify] checks every link and the anchor, so a change to the tail, or a truncation,
// is found too.
//
// The chain is keyless: it proves that the log is the one that was written only to someone who
// trusts the anchor. A person who can write the folder can write a new, consistent history;
// what they cannot do is change one entry, or cut entries, without verify saying where. To
// keep that promise against the machine's own users, copy the head hash `reins audit verify`
// prints somewhere they cannot write.
//
// # Concurrency and rotation
//
// Every session of the machine appends to the same log. An append takes an exclusive flock on
// audit.jsonl.lock, reads the head (the last line of the current file, or of the newest rotated
// file when the current one is empty), writes one line with O_APPEND and overwrites the
// fixed-size anchor with one write, so two processes never fork the chain; [Verify] takes the
// shared lock, so it never sees a line whose anchor is not written yet. When the current file
// reaches [Options.MaxBytes] it is renamed audit.jsonl.N (N counting up) and a new file begins whose first entry links to the
// last of the old one; only [Options.MaxFiles] rotated files are kept, and the anchor records
// the first retained entry, so removing the oldest file by hand is a break too.
//
// # Redaction
//
// A tool's input is sensitive (file contents, commands with tokens). By default an entry has
// only InputSHA256, the hash of the input's JSON: enough to prove later which input ran, never
// to read it. [Options.LogInputs] (settings audit.logToolInputs, or OTEL_LOG_TOOL_DETAILS=1,
// the same switch as telemetry's) puts the input itself in, up to [MaxInputBytes].
package audit
