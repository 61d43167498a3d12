// Package settings reads Reins' permission settings from disk and the command line, turns them
// into a [permission.Context], and writes permission updates back.
//
// # Sources and files
//
// Settings come from five file-based sources, read in this order (Reins' own file first,
// then Claude Code's file at the matching place, read as the same source so that rules people
// already wrote for Claude Code apply unchanged):
//
//	userSettings     $REINS_CONFIG_DIR/settings.json (~/.reins)   $CLAUDE_CONFIG_DIR/settings.json (~/.claude)
//	projectSettings  <cwd>/.reins/settings.json                   <cwd>/.claude/settings.json
//	localSettings    <cwd>/.reins/settings.local.json             <cwd>/.claude/settings.local.json
//	flagSettings     --settings FILE, or --settings '{...}' inline JSON
//	policySettings   managed-settings.json, then managed-settings.d/*.json in name order, in
//	                 $REINS_MANAGED_DIR, or else in /etc/reins and then /etc/claude-code
//
// and, read after the managed files as more policy files, the documents of [Options.Bundles]: an
// organisation's signed policy bundle, verified by package settings/policy, and a proposed
// policy that `reins policy replay` tries. Only managed files may name a bundle
// ([Loaded.PolicyBundle]); the audit key ([Loaded.Audit]) is read from every source but the
// shared project files, and its required from policy only.
//
// There are also the three in-memory sources: cliArg (--allowedTools, --disallowedTools,
// --add-dir), command and session. [Options.Sources] (--setting-sources) limits which of user, project and
// local load; flag and policy settings always load. A missing file is fine. A file reached twice
// (through a symlink, or because the project is the home folder) loads once, as the first
// source that reached it.
//
// # Strictness
//
// Load refuses, with a [*ParseError] naming file:line:col (inline JSON is named "--settings"),
// whatever would make a written restriction apply nothing: a file that is not valid JSON, a
// known key of the wrong type or null, a misspelt permissions, deny or ask, a rule list at the
// top level, an unknown permissions key holding strings, duplicate keys in a file that holds
// deny or ask rules, and in managed settings any unknown key that could hold rules. Files are
// read only when they are regular files of at most [MaxFileSize] bytes ([*NotRegularError],
// [*TooLargeError]); managed policy missing through a dangling symlink or a bad
// REINS_MANAGED_DIR is an error, not "no policy". Lines and columns are 1-based and columns
// count bytes, as Go's own tools do.
//
// Entries Claude Code drops one by one are dropped the same way, with a positioned [Warning]:
// a rule that fails [permission.ValidateRule] (from a file or a flag), an array element that is
// not a string, an additional directory that does not exist. Other unknown keys are warnings
// with a "did you mean", and are kept when writing. A dropped deny or ask rule is also recorded
// in [Report.Broken]: [Report.FailClosed] turns it into the error that stops a run.
//
// # Precedence
//
// For rules there is none: every source's rules load, and the engine's deny > ask > allow
// decides, so a deny anywhere beats an allow anywhere. Lists (allow, ask, deny,
// additionalDirectories) are the union of all sources. Scalars merge with the later source
// winning: user < project < local < flag < policy; within one source Reins' file wins over
// Claude Code's, and in a managed folder the drop-ins win over managed-settings.json in name
// order. The start mode is chosen from --dangerously-skip-permissions, then --permission-mode,
// then the merged permissions.defaultMode, then default. defaultMode "bypassPermissions" is
// honoured only from user, flag and policy settings: a repository cannot put its users in
// bypass mode. permissions.disableBypassPermissionsMode "disable" in any source skips every
// bypass candidate. allowManagedPermissionRulesOnly is honoured only from policy settings and
// then drops the rules of every other source, the command line's included.
//
// # Trust
//
// The shared project files (.reins/settings.json and .claude/settings.json) arrive with a
// repository, so their allow rules and additionalDirectories apply only once the person has
// trusted the project with [Trust] (`reins trust`), which records the folder, symlinks
// resolved, under the config folder; [IsTrusted] accepts the folder or any folder above it.
// Deny and ask rules from those files always apply: they can only make Reins more careful.
// Until then [Load] does not read those allow and additionalDirectories lists, it only counts
// them ([Settings.UnreadAllow]), so that their size costs nothing; the rest of the file is
// checked as always. The local file is the person's own and is never gated.
//
// # Writing
//
// [Persist] applies permission updates to Reins' own user, project or local file, atomically
// and without disturbing the rest of the file. Policy, flag and command settings are read-only.
package settings
