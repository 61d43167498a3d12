package permission

// DamageBudget is how much a Bash command may delete or overwrite before it needs a person's
// approval whatever the rules and the mode say (the damageBudget setting). A field of 0
// allows nothing of its kind: every destroyed file, or every byte, is over budget.
type DamageBudget struct {
	// Files is the number of files a command may delete or overwrite.
	Files int64 `json:"files"`
	// Bytes is the total size of those files.
	Bytes int64 `json:"bytes"`
}

// DefaultDamageBudget is the budget where no settings file sets one. Files below a
// dependency or build folder that git does not track (node_modules, dist, target, ...) are
// not counted against it (bashrules' damage count), so it only has to hold what a command
// does to work a person made: a few files fixed by hand, a log truncated, a checkout of a
// file or two.
var DefaultDamageBudget = DamageBudget{Files: 100, Bytes: 64 << 20}

// Damage is what a Bash command would delete or overwrite, counted before it runs.
type Damage struct {
	// Files and Bytes are the files counted against the budget and their total size.
	Files int64 `json:"files"`
	Bytes int64 `json:"bytes"`
	// AtLeast marks a count that stopped at its bound: the command destroys at least this
	// much, and the decision treats it as over budget.
	AtLeast bool `json:"atLeast,omitempty"`
	// Unknown names what could not be counted (a git command without git, an unreadable
	// folder); the decision treats such a count as over budget too.
	Unknown string `json:"unknown,omitempty"`
	// Paths are the first paths counted.
	Paths []string `json:"paths,omitempty"`
	// Untracked and Ignored count the files among them that git does not track or ignores:
	// nothing but a checkpoint can bring those back. UntrackedPaths and IgnoredPaths are the
	// first of each.
	Untracked      int64    `json:"untracked"`
	Ignored        int64    `json:"ignored"`
	UntrackedPaths []string `json:"untrackedPaths,omitempty"`
	IgnoredPaths   []string `json:"ignoredPaths,omitempty"`
	// Regenerable are dependency and build folders the command removes whole that git does
	// not track: they are rebuilt, not restored, so their files are not counted.
	Regenerable []string `json:"regenerable,omitempty"`
	// Budget is the budget the count was held against, and Over whether it was exceeded.
	Budget DamageBudget `json:"budget"`
	Over   bool         `json:"over"`
}

// DamageBudget returns the session's damage budget.
func (c *Context) DamageBudget() DamageBudget { return c.damage }
