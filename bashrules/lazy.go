package bashrules

import "github.com/reinsdev/reins/bashrules/cmdline"

// Tables and patterns that only a Bash decision needs are built on first use rather than in
// the package's init, which every run of reins pays, including runs that never see a Bash
// command. The patterns are made as the command line's are (cmdline.LazyRE).
var lazyRE = cmdline.LazyRE
