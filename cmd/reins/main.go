// Command reins is a coding agent whose every tool call goes through a permission engine.
package main

import (
	"os"

	"github.com/reinsdev/reins/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
