package settings

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reinsdev/reins/posjson"
)

// knownKeys are the top-level keys of a settings file: Claude Code's (which Reins reads the
// same files as, and so must not call unknown) and Reins' own. Only permissions and the model
// keys mean something to Reins; the rest are accepted silently.
var knownKeys = []string{
	"$schema", "allowManagedHooksOnly", "allowManagedMcpServersOnly", "allowManagedPermissionRulesOnly",
	"allowedHttpHookUrls", "allowedMcpServers", "alwaysThinkingEnabled", "apiKeyHelper", "attribution", "audit",
	"autoCompactEnabled", "autoUpdatesChannel", "awsAuthRefresh", "awsCredentialExport", "blockedMarketplaces",
	"checkpoints", "cleanupPeriodDays", "companyAnnouncements", "damageBudget", "deniedMcpServers", "disableAllHooks", "disableSkillShellExecution",
	"disabledMcpjsonServers", "effortLevel", "enableAllProjectMcpServers", "enabledMcpjsonServers",
	"enabledPlugins", "env", "extraKnownMarketplaces", "fileCheckpointingEnabled", "fileSuggestion", "forceLoginMethod",
	"forceLoginOrgUUID", "hooks", "httpHookAllowedEnvVars", "includeCoAuthoredBy",
	"includeGitInstructions", "language", "model", "otelHeadersHelper", "outputStyle",
	"permissions", "plansDirectory", "pluginConfigs", "policyBundle", "policyVersion", "provider", "respectGitignore", "sandbox",
	"showTurnDuration", "skipWebFetchPreflight", "smallModel", "spinnerTipsEnabled", "spinnerVerbs",
	"statusLine", "strictKnownMarketplaces", "subagentStatusLine", "terminalProgressBarEnabled",
	"theme", "verbose",
}

// knownPermissionKeys are the keys of the permissions object (Claude Code's schema).
var knownPermissionKeys = []string{
	"additionalDirectories", "allow", "ask", "blockReadsOutsideWorkingDirectories", "blockWritesOutsideWorkingDirectories",
	"defaultMode", "deny", "denyInsteadOfPrompting", "disableAutoMode", "disableBypassPermissionsMode", "secretFiles",
}

// mayHoldRules reports whether an unknown key could be someone's attempt at permission rules:
// its name resembles permissions, allow, ask or deny, or its value is an object or array (where
// rules would be). In managed settings such a key is an error: an administrator's mistyped
// policy must not run as no policy.
func mayHoldRules(key, suggestion string, v *posjson.Value) bool {
	if slices.Contains([]string{"permissions", "allow", "ask", "deny"}, suggestion) {
		return true
	}
	l := strings.ToLower(key)
	for _, w := range []string{"perm", "allow", "deny", "ask", "rule"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return v.Kind == posjson.Object || v.Kind == posjson.Array
}

// unknownKeyMessage is the report of an unknown key, with a suggestion when there is one.
func unknownKeyMessage(where, key, suggestion string) string {
	msg := "unknown key " + posjson.Quote(key) + where
	if suggestion != "" {
		msg += " (did you mean " + posjson.Quote(suggestion) + "?)"
	}
	return msg
}

// checkDuplicates reports the keys obj holds twice: an error when strict (a file holding deny
// or ask rules, where which value applies decides what is denied), a warning otherwise. where
// names obj in the messages (" in permissions", or "" for the top level).
func checkDuplicates(obj *posjson.Value, where string, strict bool, warnAt func(off int, format string, args ...any)) *posjson.OffsetError {
	file := " in a settings file"
	if where != "" {
		file = where + " of a settings file"
	}
	for _, m := range obj.DuplicateKeys() {
		if strict {
			return posErrorf(m.Off, "duplicate key %s%s that holds deny or ask rules: remove one, as which one applies is ambiguous", m.RawKey, file)
		}
		warnAt(m.Off, "duplicate key %s%s: only its last value is used", m.RawKey, where)
	}
	return nil
}

// checkTopKeys looks at the top-level keys of a settings document: duplicates (an error when
// strict, in a file holding deny or ask rules), and unknown keys, which are warnings with a
// "did you mean" unless they would make rules apply nothing. The error is the first problem.
func checkTopKeys(root *posjson.Value, policy, strict bool, warnAt func(off int, format string, args ...any)) *posjson.OffsetError {
	if err := checkDuplicates(root, "", strict, warnAt); err != nil {
		return err
	}
	for _, m := range root.Members {
		if slices.Contains(knownKeys, m.Key) {
			continue
		}
		sugg := posjson.DidYouMean(m.Key, knownKeys)
		if policy && mayHoldRules(m.Key, sugg, m.Val) {
			return posErrorf(m.Off, "%s in managed settings: a key that could hold permission rules must be spelt exactly", unknownKeyMessage("", m.Key, sugg))
		}
		if rl := posjson.DidYouMean(m.Key, []string{"allow", "ask", "deny"}); rl != "" {
			// A rule list written at the top level instead of inside permissions.
			return posErrorf(m.Off, "%s applies no permission rules at the top level (did you mean permissions.%s?)", unknownKeyMessage("", m.Key, ""), rl)
		}
		if sugg == "permissions" || looksLikePermissions(m.Val) {
			return posErrorf(m.Off, "%s would apply no permission rules under this name", unknownKeyMessage("", m.Key, sugg))
		}
		warnAt(m.Off, "%s", unknownKeyMessage("", m.Key, sugg))
	}
	return nil
}

// checkPermissionKeys is checkTopKeys for the permissions object, where every string is a
// rule, a folder or a mode: an unknown key holding strings, or a misspelt deny or ask, is an
// error in any file, and any unknown key is in managed settings.
func checkPermissionKeys(perms *posjson.Value, policy, strict bool, warnAt func(off int, format string, args ...any)) *posjson.OffsetError {
	if err := checkDuplicates(perms, " in permissions", strict, warnAt); err != nil {
		return err
	}
	for _, m := range perms.Members {
		if slices.Contains(knownPermissionKeys, m.Key) {
			continue
		}
		sugg := posjson.DidYouMean(m.Key, knownPermissionKeys)
		switch {
		case policy:
			return posErrorf(m.Off, "%s in managed settings: every permissions key must be spelt exactly", unknownKeyMessage(" in permissions", m.Key, sugg))
		case sugg == "deny" || sugg == "ask":
			return posErrorf(m.Off, "%s: these rules would apply nothing as written", unknownKeyMessage(" in permissions", m.Key, sugg))
		case holdsStrings(m.Val):
			return posErrorf(m.Off, "%s holds strings that would apply nothing: permission rules go in allow, ask or deny", unknownKeyMessage(" in permissions", m.Key, sugg))
		}
		warnAt(m.Off, "%s", unknownKeyMessage(" in permissions", m.Key, sugg))
	}
	return nil
}

func posErrorf(off int, format string, args ...any) *posjson.OffsetError {
	return &posjson.OffsetError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// holdsDenyOrAsk reports whether any permissions object of the document, duplicates included,
// has a non-empty deny or ask value.
func holdsDenyOrAsk(root *posjson.Value) bool {
	for _, m := range root.Members {
		if m.Key != "permissions" || m.Val.Kind != posjson.Object {
			continue
		}
		for _, pm := range m.Val.Members {
			if pm.Key != "deny" && pm.Key != "ask" {
				continue
			}
			if pm.Val.Kind != posjson.Array || len(pm.Val.Elems) > 0 {
				return true
			}
		}
	}
	return false
}

// looksLikePermissions reports whether an object under an unknown top-level key has the shape
// of a permissions object: a member whose name is, or is near, allow, ask or deny.
func looksLikePermissions(v *posjson.Value) bool {
	if v.Kind != posjson.Object {
		return false
	}
	for _, m := range v.Members {
		if posjson.DidYouMean(m.Key, []string{"allow", "ask", "deny"}) != "" {
			return true
		}
	}
	return false
}

// holdsStrings reports whether v is, or contains at any depth, a string.
func holdsStrings(v *posjson.Value) bool {
	switch v.Kind {
	case posjson.String:
		return true
	case posjson.Array:
		return slices.ContainsFunc(v.Elems, holdsStrings)
	case posjson.Object:
		return slices.ContainsFunc(v.Members, func(m posjson.Member) bool { return holdsStrings(m.Val) })
	}
	return false
}
