package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsdev/reins/permission"
)

// The choices of an elicitation, as the values of its one enum field.
const (
	choiceOnce    = "once"
	choiceSession = "session"
	choiceDeny    = "deny"
)

// rejectMessage is the result of a call the person declined in the client.
const rejectMessage = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."

// elicitAsker puts an ask to the client's user through elicitation/create: the question, the
// engine's reason, and the choices once, for this session (when the engine suggested rules)
// and deny. Declining, dismissing, or a client that fails to answer is a deny.
type elicitAsker struct{ c *conn }

func (a *elicitAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	session := sessionUpdates(req.Decision.Suggestions)
	values := []string{choiceOnce}
	names := []string{"Allow once"}
	if len(session) > 0 {
		values = append(values, choiceSession)
		names = append(names, "Allow for this session: "+describeUpdates(session))
	}
	values = append(values, choiceDeny)
	names = append(names, "Deny")
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"decision": map[string]any{
				"type":        "string",
				"title":       "Allow " + req.Tool + "?",
				"description": "Reins' permission engine asks before this call runs.",
				"enum":        values,
				"enumNames":   names,
			},
		},
		"required": []string{"decision"},
	}
	res, err := a.c.ss.Elicit(ctx, &mcp.ElicitParams{Message: question(req), RequestedSchema: schema})
	if err != nil {
		if ctx.Err() != nil {
			return permission.Decision{}, ctx.Err()
		}
		a.c.srv.log.Warn("elicitation failed; the call is denied", "session", a.c.ss.ID(), "tool", req.Tool, "error", err)
		return permission.Decision{Behavior: permission.Deny,
			Message: fmt.Sprintf("%s\nReins asked the MCP client for approval and got no answer (%v), so the call was not run.", req.Decision.Message, err),
			Reason:  &permission.Reason{Type: permission.ReasonOther, Detail: "the client's elicitation failed"}}, nil
	}
	choice, _ := res.Content["decision"].(string)
	if res.Action != "accept" {
		choice = choiceDeny
	}
	switch choice {
	case choiceOnce:
		return allowed("approved once in the MCP client"), nil
	case choiceSession:
		if len(session) > 0 {
			if err := a.c.update(ctx, session...); err != nil {
				// The call itself was approved; only remembering it failed.
				a.c.srv.log.Warn("applying session rules", "session", a.c.ss.ID(), "error", err)
			}
			return allowed("approved for this session in the MCP client: " + describeUpdates(session)), nil
		}
	}
	return permission.Decision{Behavior: permission.Deny, Message: rejectMessage,
		Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "declined in the MCP client (" + res.Action + ")", Answerer: permission.FrontEndMCPElicitation}}, nil
}

func allowed(detail string) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonOther, Detail: detail, Answerer: permission.FrontEndMCPElicitation}}
}

// question is the elicitation's message: what would run and why Reins asks.
func question(req permission.AskRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Reins asks before running %s", req.Tool)
	if s := inputSummary(req.Input); s != "" {
		fmt.Fprintf(&b, ": %s", s)
	}
	b.WriteString("\n\n")
	b.WriteString(req.Decision.Message)
	if req.Decision.Reason != nil {
		fmt.Fprintf(&b, "\n\nReason: %s", req.Decision.Reason)
	}
	return b.String()
}

// inputSummary shows the input as compact JSON, cut at a length a dialog can show.
func inputSummary(in any) string {
	raw, err := json.Marshal(in)
	if err != nil {
		return ""
	}
	s := string(raw)
	if r := []rune(s); len(r) > 2000 {
		s = string(r[:2000]) + "…"
	}
	return s
}

// sessionUpdates are the engine's suggestions, aimed at the session: a client's "always"
// lasts as long as its connection and never writes a settings file.
func sessionUpdates(sugg []permission.Update) []permission.Update {
	var out []permission.Update
	for _, u := range sugg {
		u.Destination = permission.SourceSession
		out = append(out, u)
	}
	return out
}

// describeUpdates says what updates grant, e.g. `allow Bash(git push:*)`.
func describeUpdates(us []permission.Update) string {
	var parts []string
	for _, u := range us {
		switch u.Type {
		case permission.AddRules:
			var rules []string
			for _, r := range u.Rules {
				rules = append(rules, r.String())
			}
			parts = append(parts, fmt.Sprintf("%s %s", u.Behavior, strings.Join(rules, ", ")))
		case permission.SetMode:
			parts = append(parts, fmt.Sprintf("switch to %s mode", u.Mode))
		case permission.AddDirectories:
			parts = append(parts, "add the directories "+strings.Join(u.Directories, ", "))
		default:
			parts = append(parts, string(u.Type))
		}
	}
	return strings.Join(parts, "; ")
}

// refuseAsker answers for a client that cannot be asked (no elicitation capability): the call
// is denied with the ask message and how to grant it.
type refuseAsker struct{}

func (refuseAsker) Ask(_ context.Context, req permission.AskRequest) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Deny, Message: req.Decision.Message + "\n" + grantHint(req),
		Reason: req.Decision.Reason, BlockedPath: req.Decision.BlockedPath}, nil
}

// grantHint tells the client's user how to let the call through next time.
func grantHint(req permission.AskRequest) string {
	rule := req.Tool
	var in struct {
		Command string `json:"command"`
	}
	if raw, err := json.Marshal(req.Input); err == nil && json.Unmarshal(raw, &in) == nil && in.Command != "" && !strings.ContainsAny(in.Command, "()") {
		rule = fmt.Sprintf("%s(%s)", req.Tool, in.Command)
	}
	for _, u := range req.Decision.Suggestions {
		if u.Type == permission.AddRules && u.Behavior == permission.Allow && len(u.Rules) > 0 {
			rule = u.Rules[0].String()
			break
		}
	}
	return fmt.Sprintf("This MCP client cannot answer permission prompts (it does not declare elicitation), so Reins denied the call. "+
		"To allow it, start the server with --allowedTools %q, add %q to permissions.allow in .reins/settings.json, "+
		"or connect with a client that supports elicitation.", rule, rule)
}
