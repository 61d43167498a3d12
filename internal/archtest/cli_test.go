package archtest

import (
	"slices"
	"strings"
	"testing"
)

// maxCLIImports is how many of the module's packages one package of the CLI may import: a
// command group that needs more is two groups.
const maxCLIImports = 12

// cliImports names, for each package of the CLI, the packages of ours it may import. A
// command package imports cmdutil and the packages its commands drive, never a sibling
// command's package; the agent's modes share cmd/agent/shared, and the chat's approval dialog
// records its answers through cmd/mcp as `reins mcp approve` does.
var cliImports = map[string][]string{
	"internal/cli":                         {"built", "internal/cli/cmd/agent", "internal/cli/cmd/audit", "internal/cli/cmd/extensions", "internal/cli/cmd/mcp", "internal/cli/cmd/permissions", "internal/cli/cmd/rewind", "internal/cli/cmd/sandbox", "internal/cli/cmd/tools", "internal/cli/cmdutil", "internal/procguard"},
	"internal/cli/cmd/agent":               {"agent", "internal/app", "internal/cli/cmd/agent/chat", "internal/cli/cmd/agent/sdk", "internal/cli/cmd/agent/shared", "internal/cli/cmdutil", "internal/sdkproto", "llm"},
	"internal/cli/cmd/agent/chat":          {"internal/app", "internal/cli/cmd/agent/chat/chatview", "internal/cli/cmd/agent/shared", "internal/cli/cmd/mcp", "internal/cli/cmdutil", "internal/tui", "llm", "mcp/client", "permission", "session", "settings"},
	"internal/cli/cmd/agent/chat/chatview": {"agentdef", "checkpoint", "internal/app", "internal/cli/cmd/agent/shared", "internal/cli/cmdutil", "internal/tui", "memory", "permission", "settings", "skills"},
	"internal/cli/cmd/agent/sdk":           {"agent", "agentdef", "checkpoint", "commands", "internal/app", "internal/cli/cmd/agent/shared", "internal/cli/cmdutil", "internal/sdkproto", "mcp/client", "plugins", "skills", "tools"},
	"internal/cli/cmd/agent/shared":        {"agent", "internal/app", "internal/app/provider", "internal/cli/cmdutil", "internal/sdkproto", "llm", "session", "tools", "tools/bash", "worktree"},
	"internal/cli/cmd/audit":               {"audit", "boundedfile", "internal/app", "internal/cli/cmdutil", "permission", "replay", "session", "settings", "settings/policy", "tool"},
	"internal/cli/cmd/extensions":          {"internal/app", "internal/cli/cmdutil", "permission", "settings", "tools/agenttool"},
	"internal/cli/cmdutil/cmdtest":         {},
	"internal/cli/cmd/mcp":                 {"boundedfile", "internal/app", "internal/cli/cmdutil", "mcp/client", "mcp/serve", "permission", "toolcall"},
	"internal/cli/cmd/permissions":         {"bashrules", "bashrules/gitcli", "internal/app", "internal/cli/cmdutil", "memory", "permission", "settings", "tool"},
	"internal/cli/cmd/rewind":              {"checkpoint", "internal/cli/cmdutil", "session"},
	"internal/cli/cmd/sandbox":             {"internal/app", "internal/app/provider", "internal/app/sessionsandbox", "internal/cli/cmdutil", "permission", "sandbox", "sandbox/confine", "sandbox/landlock"},
	"internal/cli/cmd/tools":               {"boundedfile", "internal/app", "internal/cli/cmdutil", "permission", "tool", "toolcall", "tools", "tools/bash", "tools/workflow"},
	"internal/cli/cmdutil":                 {"checkpoint", "hooks", "internal/app", "internal/procguard", "permission", "sandbox", "settings", "skills", "tool", "tools/bash", "worktree"},
}

func TestCLIPackagesImports(t *testing.T) {
	pkgs := listPackages(t)
	for rel, allowed := range cliImports {
		if len(allowed) > maxCLIImports {
			t.Errorf("%s may import %d of our packages; at most %d", rel, len(allowed), maxCLIImports)
		}
		if _, ok := pkgs[module+"/"+rel]; !ok {
			t.Errorf("package %s in cliImports does not exist", rel)
		}
	}
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok || !strings.HasPrefix(rel, "internal/cli") {
			continue
		}
		allowed, ok := cliImports[rel]
		if !ok {
			t.Errorf("%s is a CLI package missing from cliImports: add it with the packages it may import", rel)
			continue
		}
		for _, imp := range p.Imports {
			if irel, ok := ours(imp); ok && !slices.Contains(allowed, irel) {
				t.Errorf("%s imports %s, which cliImports does not allow it", rel, irel)
			}
		}
	}
}
