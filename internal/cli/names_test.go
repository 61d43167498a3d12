package cli

import "github.com/reinsdev/reins/internal/cli/cmd/permissions"

// The JSON documents the end-to-end tests decode, under the names they know.
type (
	checkResult = permissions.CheckResult
	listResult  = permissions.ListResult
)
