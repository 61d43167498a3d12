package settings

import (
	"fmt"
	"slices"
	"strings"
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

// DidYouMean returns the known key a mistyped key most likely meant, or "": the same key in
// another case (Deny, Permissions), or one within two edits (permisions, dney). Every
// configuration file of Reins reports unknown keys with it.
func DidYouMean(key string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	if len(key) < 3 {
		return ""
	}
	best, bestD := "", 3
	lower := strings.ToLower(key)
	for _, k := range known {
		if d := editDistance(lower, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// mayHoldRules reports whether an unknown key could be someone's attempt at permission rules:
// its name resembles permissions, allow, ask or deny, or its value is an object or array (where
// rules would be). In managed settings such a key is an error: an administrator's mistyped
// policy must not run as no policy.
func mayHoldRules(key, suggestion string, v *value) bool {
	if slices.Contains([]string{"permissions", "allow", "ask", "deny"}, suggestion) {
		return true
	}
	l := strings.ToLower(key)
	for _, w := range []string{"perm", "allow", "deny", "ask", "rule"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return v.kind == kindObject || v.kind == kindArray
}

// unknownKeyMessage is the report of an unknown key, with a suggestion when there is one.
func unknownKeyMessage(where, key, suggestion string) string {
	msg := "unknown key " + quote(key) + where
	if suggestion != "" {
		msg += " (did you mean " + quote(suggestion) + "?)"
	}
	return msg
}

// checkDuplicates reports the keys obj holds twice: an error when strict (a file holding deny
// or ask rules, where which value applies decides what is denied), a warning otherwise. where
// names obj in the messages (" in permissions", or "" for the top level).
func checkDuplicates(obj *value, where string, strict bool, warnAt func(off int, format string, args ...any)) *posError {
	file := " in a settings file"
	if where != "" {
		file = where + " of a settings file"
	}
	for _, m := range obj.duplicateKeys() {
		if strict {
			return posErrorf(m.off, "duplicate key %s%s that holds deny or ask rules: remove one, as which one applies is ambiguous", m.rawKey, file)
		}
		warnAt(m.off, "duplicate key %s%s: only its last value is used", m.rawKey, where)
	}
	return nil
}

// checkTopKeys looks at the top-level keys of a settings document: duplicates (an error when
// strict, in a file holding deny or ask rules), and unknown keys, which are warnings with a
// "did you mean" unless they would make rules apply nothing. The error is the first problem.
func checkTopKeys(root *value, policy, strict bool, warnAt func(off int, format string, args ...any)) *posError {
	if err := checkDuplicates(root, "", strict, warnAt); err != nil {
		return err
	}
	for _, m := range root.members {
		if slices.Contains(knownKeys, m.key) {
			continue
		}
		sugg := DidYouMean(m.key, knownKeys)
		if policy && mayHoldRules(m.key, sugg, m.val) {
			return posErrorf(m.off, "%s in managed settings: a key that could hold permission rules must be spelt exactly", unknownKeyMessage("", m.key, sugg))
		}
		if rl := DidYouMean(m.key, []string{"allow", "ask", "deny"}); rl != "" {
			// A rule list written at the top level instead of inside permissions.
			return posErrorf(m.off, "%s applies no permission rules at the top level (did you mean permissions.%s?)", unknownKeyMessage("", m.key, ""), rl)
		}
		if sugg == "permissions" || looksLikePermissions(m.val) {
			return posErrorf(m.off, "%s would apply no permission rules under this name", unknownKeyMessage("", m.key, sugg))
		}
		warnAt(m.off, "%s", unknownKeyMessage("", m.key, sugg))
	}
	return nil
}

// checkPermissionKeys is checkTopKeys for the permissions object, where every string is a
// rule, a folder or a mode: an unknown key holding strings, or a misspelt deny or ask, is an
// error in any file, and any unknown key is in managed settings.
func checkPermissionKeys(perms *value, policy, strict bool, warnAt func(off int, format string, args ...any)) *posError {
	if err := checkDuplicates(perms, " in permissions", strict, warnAt); err != nil {
		return err
	}
	for _, m := range perms.members {
		if slices.Contains(knownPermissionKeys, m.key) {
			continue
		}
		sugg := DidYouMean(m.key, knownPermissionKeys)
		switch {
		case policy:
			return posErrorf(m.off, "%s in managed settings: every permissions key must be spelt exactly", unknownKeyMessage(" in permissions", m.key, sugg))
		case sugg == "deny" || sugg == "ask":
			return posErrorf(m.off, "%s: these rules would apply nothing as written", unknownKeyMessage(" in permissions", m.key, sugg))
		case holdsStrings(m.val):
			return posErrorf(m.off, "%s holds strings that would apply nothing: permission rules go in allow, ask or deny", unknownKeyMessage(" in permissions", m.key, sugg))
		}
		warnAt(m.off, "%s", unknownKeyMessage(" in permissions", m.key, sugg))
	}
	return nil
}

func posErrorf(off int, format string, args ...any) *posError {
	return &posError{off: off, msg: fmt.Sprintf(format, args...)}
}

// holdsDenyOrAsk reports whether any permissions object of the document, duplicates included,
// has a non-empty deny or ask value.
func holdsDenyOrAsk(root *value) bool {
	for _, m := range root.members {
		if m.key != "permissions" || m.val.kind != kindObject {
			continue
		}
		for _, pm := range m.val.members {
			if pm.key != "deny" && pm.key != "ask" {
				continue
			}
			if pm.val.kind != kindArray || len(pm.val.elems) > 0 {
				return true
			}
		}
	}
	return false
}

// looksLikePermissions reports whether an object under an unknown top-level key has the shape
// of a permissions object: a member whose name is, or is near, allow, ask or deny.
func looksLikePermissions(v *value) bool {
	if v.kind != kindObject {
		return false
	}
	for _, m := range v.members {
		if DidYouMean(m.key, []string{"allow", "ask", "deny"}) != "" {
			return true
		}
	}
	return false
}

// holdsStrings reports whether v is, or contains at any depth, a string.
func holdsStrings(v *value) bool {
	switch v.kind {
	case kindString:
		return true
	case kindArray:
		return slices.ContainsFunc(v.elems, holdsStrings)
	case kindObject:
		return slices.ContainsFunc(v.members, func(m member) bool { return holdsStrings(m.val) })
	}
	return false
}
