package cli

import "github.com/spf13/cobra"

// examples are the Example sections of the leaf commands, by command path, kept together so
// they read as one set.
var examples = map[string]string{
	"reins permissions check": `  reins permissions check --tool Bash --input '{"command":"npm run test:unit"}'
  reins permissions check --tool Read --input '{"file_path":".env"}' --json
  reins permissions check --tool Edit --input '{"file_path":"a.go","old_string":"x","new_string":"y"}' --permission-mode acceptEdits`,
	"reins permissions list": `  reins permissions list
  reins permissions list --json --allowedTools "Bash(go test:*)"`,
	"reins tools list": `  reins tools list
  REINS_SIMPLE=1 reins tools list --json`,
	"reins tool run": `  reins tool run Grep --input '{"pattern":"TODO","output_mode":"count"}'
  reins tool run Read --input '{"file_path":"main.go"}' --session fix
  reins tool run Edit --input '{"file_path":"main.go","old_string":"foo","new_string":"bar"}' --session fix --permission-mode acceptEdits`,
	"reins audit path": `  reins audit path`,
	"reins audit show": `  reins audit show --decision deny --since 24h
  reins audit show --json --session 3f2a9c1e-0000-4000-8000-000000000000 --tool Bash
  reins audit show --kind run --since 2026-01-31 --until 2026-02-01`,
	"reins audit verify": `  reins audit verify
  reins audit verify --json`,
	"reins policy keygen": `  reins policy keygen --out ~/secure/reins-policy.key`,
	"reins policy sign":   `  reins policy sign --key ~/secure/reins-policy.key policy.json`,
	"reins policy replay": `  reins policy replay --settings proposed.json
  reins policy replay --settings proposed.json --since 7d --json`,
	"reins trust": `  reins trust
  reins trust ~/src/project`,
	"reins rewind": `  reins rewind
  reins rewind 0b6f6c3e-1a2b-4c3d-8e9f-001122334455 --to 2 --dry-run
  reins rewind 0b6f6c3e-1a2b-4c3d-8e9f-001122334455 --to 2`,
}

// addExamples sets the Example of every command examples lists that has none of its own.
func addExamples(c *cobra.Command) {
	if e, ok := examples[c.CommandPath()]; ok && c.Example == "" {
		c.Example = e
	}
}
