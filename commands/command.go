package commands

import (
	"github.com/reinsdev/reins/frontmatter"
	"github.com/reinsdev/reins/permission"
)

// Command is one custom slash command.
type Command struct {
	// Name is the command without its slash: "review", "frontend:lint".
	Name         string
	Description  string
	ArgumentHint string
	// Model is the model the command asks for; empty means the session's.
	Model string
	// DisableModelInvocation keeps the command from the SlashCommand tool: only a person runs it.
	DisableModelInvocation bool
	Source                 Source
	File                   string
	// Body is the prompt template; BodyLine is the file's line it starts on.
	Body     string
	BodyLine int

	allowed []permission.Rule
}

// Label is how the command is listed: "/name (project)".
func (c *Command) Label() string { return "/" + c.Name + " (" + string(c.Source) + ")" }

// Rules returns the command's allowed-tools as allow rules of source command, each with the
// file and line it was written on. trusted says whether the workspace is trusted: a project's
// command brings no rules before it is, and Ignored says so.
func (c *Command) Rules(trusted bool) []permission.Rule {
	if c.Source.NeedsTrust() && !trusted {
		return nil
	}
	return append([]permission.Rule(nil), c.allowed...)
}

// AllowedTools are the command's allowed-tools rules, whether or not they apply.
func (c *Command) AllowedTools() []string {
	out := make([]string, len(c.allowed))
	for i, r := range c.allowed {
		out[i] = r.Value.String()
	}
	return out
}

// Ignored explains why the command's rules do not apply, or is empty when they do (or it has
// none).
func (c *Command) Ignored(trusted bool) string {
	if len(c.allowed) == 0 || !c.Source.NeedsTrust() || trusted {
		return ""
	}
	return "allowed-tools of " + c.File + " ignored: the project is not trusted (run reins trust)"
}

// parseAllowed turns allowed-tools entries into rules, refusing the first invalid one at its
// position: a command whose rules cannot all be read is not run with some of them.
func parseAllowed(file string, items []frontmatter.Entry) ([]permission.Rule, error) {
	var out []permission.Rule
	for _, it := range items {
		if err := permission.ValidateRule(it.Value); err != nil {
			return nil, &frontmatter.Error{File: file, Line: it.Line, Col: it.Col, Msg: "allowed-tools: " + it.Value + ": " + err.Error()}
		}
		out = append(out, permission.Rule{
			Value:    permission.ParseRule(it.Value),
			Behavior: permission.Allow,
			Source:   permission.SourceCommand,
			Origin:   permission.Origin{File: file, Line: it.Line, Col: it.Col},
		})
	}
	return out, nil
}
