package bashrules

// runnerSubcommands are subcommands whose next word names what runs: a package script, a
// file, a container, another program. A "cmd sub:*" rule for them would allow every script
// or program, far more than the command that was asked about, so the suggestion for such a
// command is the command itself.
var runnerSubcommands = map[string]map[string]bool{
	"npm":     {"run": true, "run-script": true, "exec": true, "x": true},
	"pnpm":    {"run": true, "exec": true, "dlx": true},
	"yarn":    {"run": true, "exec": true, "dlx": true},
	"bun":     {"run": true, "x": true},
	"deno":    {"run": true, "task": true, "eval": true},
	"go":      {"run": true, "generate": true, "tool": true},
	"uv":      {"run": true, "tool": true},
	"poetry":  {"run": true},
	"pipenv":  {"run": true},
	"pdm":     {"run": true},
	"hatch":   {"run": true},
	"rye":     {"run": true},
	"docker":  {"run": true, "exec": true},
	"podman":  {"run": true, "exec": true},
	"kubectl": {"exec": true, "run": true},
}

// runsNamedProgram reports whether argv is "cmd sub ..." with sub a runner subcommand of cmd.
func runsNamedProgram(name string, argv []Word) bool {
	return len(argv) >= 2 && runnerSubcommands[name][argv[1].Value]
}
