package sdkproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// defaultDenyMessage answers the model when a deny came without a message.
const defaultDenyMessage = "Permission to use this tool was denied by the permission prompt."

// Checks is what applying an answer needs: the tools, to show the call's input as the model
// sent it, and the session's permissions, to apply the answer's updates. A substituted input is
// not checked here: the engine decides it again as a new call ([permission.Engine.AuthorizeCall]).
type Checks struct {
	Permissions *agent.Permissions
	// Lookup finds a tool of the pool by name.
	Lookup func(name string) tool.Tool
	// Log receives warnings (an update that could not be saved); nil discards them.
	Log io.Writer
}

// PermissionRequest is the can_use_tool request.
type PermissionRequest struct {
	Subtype               string              `json:"subtype"`
	ToolName              string              `json:"tool_name"`
	Input                 json.RawMessage     `json:"input"`
	ToolUseID             string              `json:"tool_use_id"`
	Description           string              `json:"description,omitempty"`
	PermissionSuggestions []permission.Update `json:"permission_suggestions,omitempty"`
	BlockedPath           string              `json:"blocked_path,omitempty"`
	DecisionReason        string              `json:"decision_reason,omitempty"`
	DecisionReasonType    string              `json:"decision_reason_type,omitempty"`
}

// permissionResult is the answer, the SDK's PermissionResult and Claude Code's
// permission-prompt tool JSON alike.
type permissionResult struct {
	Behavior           string              `json:"behavior"`
	UpdatedInput       json.RawMessage     `json:"updatedInput"`
	UpdatedPermissions []permission.Update `json:"updatedPermissions"`
	Message            string              `json:"message"`
	Interrupt          bool                `json:"interrupt"`
}

// Asker answers the engine's asks with the SDK caller's canUseTool (--permission-prompt-tool
// stdio).
type Asker struct {
	Conn *Conn
	Checks
	// Interrupt aborts the running turn; a deny with interrupt:true calls it.
	Interrupt func()
}

// Ask sends can_use_tool and turns the answer into a decision. It waits as long as the caller
// takes; the turn's interrupt or the end of input ends the wait.
func (a *Asker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	pr := a.newPermissionRequest(ctx, req)
	raw, err := a.Conn.Request(ctx, pr)
	switch {
	case ctx.Err() != nil:
		return permission.Decision{}, ctx.Err()
	case errors.Is(err, ErrInputClosed):
		return denyDecision("Permission was not granted: the SDK caller closed its input before answering.", "stdio"), nil
	case err != nil:
		var re *RequestError
		if errors.As(err, &re) {
			return denyDecision("Permission was not granted: "+re.Message, "stdio"), nil
		}
		return permission.Decision{}, err
	}
	d, interrupt := a.settle(ctx, req, raw, "stdio")
	if interrupt && a.Interrupt != nil {
		a.Interrupt()
	}
	return d, nil
}

func (c *Checks) newPermissionRequest(ctx context.Context, req permission.AskRequest) PermissionRequest {
	pr := PermissionRequest{Subtype: "can_use_tool", ToolName: req.Tool, PermissionSuggestions: req.Decision.Suggestions,
		BlockedPath: req.Decision.BlockedPath}
	if use, ok := agent.ToolUseOf(ctx); ok {
		pr.ToolUseID = use.ID
		if c.showsAsSent(req, use.Input) {
			pr.Input = use.Input
		}
	}
	if len(pr.Input) == 0 {
		// A hook or an earlier answer substituted the input: the caller is shown what would run.
		b, err := json.Marshal(req.Input)
		if err != nil {
			b = []byte(`{}`)
		}
		pr.Input = b
	}
	var in struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(pr.Input, &in) == nil {
		pr.Description = in.Description
	}
	if r := req.Decision.Reason; r != nil {
		pr.DecisionReasonType = string(r.Type)
		pr.DecisionReason = r.String()
	}
	if pr.DecisionReason == "" {
		pr.DecisionReason = req.Decision.Message
	}
	if req.Again != "" {
		pr.DecisionReason = req.Again
	}
	return pr
}

func denyDecision(msg, source string) permission.Decision {
	return permission.Decision{Behavior: permission.Deny, Message: msg,
		Reason: &permission.Reason{Type: permission.ReasonPermissionPromptTool, Detail: source, Answerer: frontEnd(source)}}
}

// frontEnd is who decided for an answer of source: the SDK caller's canUseTool ("stdio") or a
// permission-prompt tool.
func frontEnd(source string) string {
	if source == "stdio" {
		return permission.FrontEndSDK
	}
	return permission.PromptToolFrontEnd(source)
}

// settle turns an answer into a decision, and reports whether the caller asked to interrupt.
// Anything but a well-formed allow is a deny.
func (c *Checks) settle(ctx context.Context, req permission.AskRequest, raw []byte, source string) (permission.Decision, bool) {
	var res permissionResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return denyDecision(fmt.Sprintf("Permission was not granted: the answer of %s is not a permission result: %v", source, err), source), false
	}
	switch res.Behavior {
	case "deny":
		msg := strings.TrimSpace(res.Message)
		if msg == "" {
			msg = defaultDenyMessage
		}
		return denyDecision(msg, source), res.Interrupt
	case "allow":
	default:
		return denyDecision(fmt.Sprintf("Permission was not granted: %s answered behavior %q, want allow or deny.", source, res.Behavior), source), false
	}

	d := permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonPermissionPromptTool, Detail: source, Answerer: frontEnd(source)}}
	if u := res.UpdatedInput; len(u) > 0 && string(u) != "null" {
		// The engine decides the substitute as a new call before anything runs.
		d.UpdatedInput = u
	}
	if len(res.UpdatedPermissions) > 0 && c.Permissions != nil {
		if err := c.Permissions.Update(ctx, res.UpdatedPermissions...); err != nil && c.Log != nil {
			// The call itself was allowed; only remembering the answer failed.
			fmt.Fprintf(c.Log, "reins: warning: applying the permission updates of %s: %v\n", source, err)
		}
	}
	return d, false
}

// showsAsSent reports whether the input asked about is the one the model sent (raw), so the
// caller sees the model's own JSON rather than its decoded form.
func (c *Checks) showsAsSent(req permission.AskRequest, raw json.RawMessage) bool {
	if len(raw) == 0 || c.Lookup == nil {
		return false
	}
	t := c.Lookup(req.Tool)
	if t == nil {
		return false
	}
	in, err := t.Decode(raw)
	return err == nil && reflect.DeepEqual(in, req.Input)
}

// ToolAsker answers asks with a tool of the pool (--permission-prompt-tool mcp__server__tool):
// the tool gets {tool_name, input, tool_use_id} and answers with the JSON of a permission
// result in its text. An error, an error result or any other text is a deny.
type ToolAsker struct {
	Tool tool.Tool
	Env  *tool.Env
	Checks
}

// Ask calls the tool and reads its answer.
func (a *ToolAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	pr := a.newPermissionRequest(ctx, req)
	source := a.Tool.Name()
	args, err := json.Marshal(struct {
		ToolName  string          `json:"tool_name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
	}{pr.ToolName, pr.Input, pr.ToolUseID})
	if err != nil {
		return permission.Decision{}, fmt.Errorf("encoding the input of %s: %w", source, err)
	}
	in, err := a.Tool.Decode(args)
	if err != nil {
		return denyDecision(fmt.Sprintf("Permission was not granted: %s does not take a permission request: %v", source, err), source), nil
	}
	env := a.Env
	if env == nil {
		env = &tool.Env{}
	}
	res, err := a.Tool.Call(ctx, in, env)
	if ctx.Err() != nil {
		return permission.Decision{}, ctx.Err()
	}
	if err != nil {
		return denyDecision(fmt.Sprintf("Permission was not granted: %s failed: %v", source, err), source), nil
	}
	if res.IsError {
		return denyDecision(fmt.Sprintf("Permission was not granted: %s answered with an error: %s", source, res.TextOf()), source), nil
	}
	d, _ := a.settle(ctx, req, []byte(strings.TrimSpace(res.TextOf())), source)
	return d, nil
}
