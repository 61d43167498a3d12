package cli

import (
	"github.com/reinsdev/reins/internal/cli/cmd/agent/shared"
	"github.com/reinsdev/reins/internal/cli/cmd/permissions"
	"github.com/reinsdev/reins/internal/cli/cmd/sandbox"
	"github.com/reinsdev/reins/internal/cli/cmd/tools"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// The JSON documents the end-to-end tests decode, under the names they know.
type (
	checkResult = permissions.CheckResult
	listResult  = permissions.ListResult
)

type toolsListResult = tools.ListResult

type (
	runResult           = tools.RunResult
	listedTool          = tools.ListedTool
	sandboxStatusReport = sandbox.StatusReport
)

const rejectMessage = tools.RejectMessage

const (
	formatText       = shared.FormatText
	formatJSON       = shared.FormatJSON
	formatStreamJSON = shared.FormatStreamJSON
)

func joinWorktreeName(args []string) []string { return cmdutil.JoinWorktreeName(args) }
