package cli

import (
	"github.com/reinsdev/reins/internal/cli/cmd/permissions"
	"github.com/reinsdev/reins/internal/cli/cmd/sandbox"
	"github.com/reinsdev/reins/internal/cli/cmd/tools"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/permission"
)

// The end-to-end tests, which run the real binary, know the command packages' types and
// helpers by the names they had when the commands lived in this package; these keep those
// names, so the tests need no change.

// The JSON documents the tests decode.
type (
	checkResult         = permissions.CheckResult
	toolsListResult     = tools.ListResult
	runResult           = tools.RunResult
	listedTool          = tools.ListedTool
	sandboxStatusReport = sandbox.StatusReport
)

const rejectMessage = tools.RejectMessage

func joinWorktreeName(args []string) []string { return cmdutil.JoinWorktreeName(args) }

func shadows(b, a permission.RuleValue) bool { return cmdutil.Shadows(b, a) }

func sandboxHelper(args []string) (code int, ok bool) { return sandbox.SandboxHelper(args) }
