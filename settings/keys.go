package settings

import (
	"slices"
	"strings"
)

// knownKeys are the top-level keys of a settings file: Claude Code's (which Reins reads the
// same files as, and so must not call unknown) and Reins' own. Only permissions and the model
// keys mean something to Reins; the rest are accepted silently.
var knownKeys = []string{
	"$schema", "allowManagedHooksOnly", "allowManagedMcpServersOnly", "allowManagedPermissionRulesOnly",
	"allowedHttpHookUrls", "allowedMcpServers", "alwaysThinkingEnabled", "apiKeyHelper", "attribution",
	"autoUpdatesChannel", "awsAuthRefresh", "awsCredentialExport", "blockedMarketplaces",
	"cleanupPeriodDays", "companyAnnouncements", "deniedMcpServers", "disableAllHooks",
	"disabledMcpjsonServers", "effortLevel", "enableAllProjectMcpServers", "enabledMcpjsonServers",
	"enabledPlugins", "env", "extraKnownMarketplaces", "fileSuggestion", "forceLoginMethod",
	"forceLoginOrgUUID", "hooks", "httpHookAllowedEnvVars", "includeCoAuthoredBy",
	"includeGitInstructions", "language", "model", "otelHeadersHelper", "outputStyle",
	"permissions", "plansDirectory", "pluginConfigs", "provider", "respectGitignore", "sandbox",
	"showTurnDuration", "skipWebFetchPreflight", "smallModel", "spinnerTipsEnabled", "spinnerVerbs",
	"statusLine", "strictKnownMarketplaces", "subagentStatusLine", "terminalProgressBarEnabled",
	"theme", "verbose",
}

// knownPermissionKeys are the keys of the permissions object (Claude Code's schema).
var knownPermissionKeys = []string{
	"additionalDirectories", "allow", "ask", "defaultMode", "deny", "disableAutoMode", "disableBypassPermissionsMode",
}

// didYouMean returns the known key a mistyped key most likely meant, or "": the same key in
// another case (Deny, Permissions), or one within two edits (permisions, dney).
func didYouMean(key string, known []string) string {
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
