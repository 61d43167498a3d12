package permission

// DeciderKind says what kind of thing decided a call.
type DeciderKind string

const (
	// DecidedByRule: an allow, ask or deny rule (Rule, RuleSource, RuleOrigin).
	DecidedByRule DeciderKind = "rule"
	// DecidedByPerson: a person answered an ask, through FrontEnd.
	DecidedByPerson DeciderKind = "person"
	// DecidedByHook: a PreToolUse or PermissionRequest hook (Hook names it and where it is).
	DecidedByHook DeciderKind = "hook"
	// DecidedByClassifier: auto mode's classifier (or its safe-tool and acceptEdits shortcuts).
	DecidedByClassifier DeciderKind = "classifier"
	// DecidedByMode: the permission mode (Mode): bypassPermissions, acceptEdits, dontAsk.
	DecidedByMode DeciderKind = "mode"
	// DecidedBySetting: a setting that turns asks into denials (Setting, with where it is set).
	DecidedBySetting DeciderKind = "setting"
	// DecidedByCheck: the tool's own check — the working directories, a safety check, the
	// sandbox, a Bash command's analysis — with no rule behind it.
	DecidedByCheck DeciderKind = "check"
	// DecidedByNoOne: an ask no one could answer (a headless run, a background agent), denied.
	DecidedByNoOne DeciderKind = "noOne"
)

// DecidedBy says who decided a call, derived once from the decision when the engine returns it
// ([Engine.AuthorizeCall] sets [Decision.By]); the audit log, telemetry and the SDK's
// permission_denied line all print this one value.
type DecidedBy struct {
	Kind DeciderKind `json:"kind"`
	// Rule, RuleSource and RuleOrigin name the deciding rule and where it was written.
	Rule       string `json:"rule,omitempty"`
	RuleSource string `json:"ruleSource,omitempty"`
	RuleOrigin string `json:"ruleOrigin,omitempty"`
	// FrontEnd is where a person answered: chat, sdk canUseTool, permission prompt tool NAME,
	// MCP elicitation.
	FrontEnd string `json:"frontEnd,omitempty"`
	// Hook names the deciding hooks with where each was configured.
	Hook string `json:"hook,omitempty"`
	// Mode is the deciding mode.
	Mode Mode `json:"mode,omitempty"`
	// Setting is the setting that decided, with where it was set.
	Setting string `json:"setting,omitempty"`
	// Detail is the decision's reason, in words.
	Detail string `json:"detail,omitempty"`
	// PolicyVersion is the signed policy bundle's version in force ("" for none).
	PolicyVersion string `json:"policyVersion,omitempty"`
}

// Front ends a person answers through, as askers set [Reason.Answerer].
const (
	FrontEndChat             = "chat"
	FrontEndSDK              = "sdk canUseTool"
	FrontEndPromptTool       = "permission prompt tool"
	FrontEndMCPElicitation   = "MCP elicitation"
	frontEndPromptToolPrefix = FrontEndPromptTool + " "
)

// PromptToolFrontEnd is the front end of a permission-prompt tool's answer.
func PromptToolFrontEnd(tool string) string { return frontEndPromptToolPrefix + tool }

// attribute derives who decided d.
func attribute(d Decision, policyVersion string) *DecidedBy {
	by := &DecidedBy{PolicyVersion: policyVersion}
	if d.Reason != nil {
		by.Detail = d.Reason.String()
	}
	if a := d.answer; a != nil {
		switch {
		case a.Type == ReasonHook:
			by.Kind, by.Hook = DecidedByHook, cmpOr(a.Hook, a.Detail)
		case a.Answerer != "":
			by.Kind, by.FrontEnd = DecidedByPerson, a.Answerer
		default:
			by.Kind = DecidedByNoOne
		}
		if a.Setting != "" {
			by.Kind, by.Setting = DecidedBySetting, a.Setting
		}
		return by
	}
	r := d.Reason
	switch {
	case d.headless:
		by.Kind = DecidedByNoOne
	case r == nil:
		by.Kind = DecidedByCheck
	case r.Setting != "":
		by.Kind, by.Setting = DecidedBySetting, r.Setting
	case d.DecidingRule() != nil:
		rule := d.DecidingRule()
		by.Kind, by.Rule, by.RuleSource, by.RuleOrigin = DecidedByRule, rule.Value.String(), rule.Source.String(), rule.Origin.String()
	case r.Type == ReasonHook:
		by.Kind, by.Hook = DecidedByHook, cmpOr(r.Hook, r.Detail)
	case r.Type == ReasonClassifier:
		by.Kind = DecidedByClassifier
	case r.Type == ReasonMode:
		by.Kind, by.Mode = DecidedByMode, r.Mode
	case r.Type == ReasonAsyncAgent:
		by.Kind = DecidedByNoOne
	case r.Answerer != "":
		by.Kind, by.FrontEnd = DecidedByPerson, r.Answerer
	default:
		by.Kind = DecidedByCheck
	}
	return by
}

// DecidingRule is the rule behind a decision: its reason's, or for a compound command the
// first part decided the same way by a rule; nil when no rule decided.
func (d Decision) DecidingRule() *Rule {
	if d.Reason == nil {
		return nil
	}
	if d.Reason.Rule != nil {
		return d.Reason.Rule
	}
	for _, s := range d.Reason.Subresults {
		if s.Decision.Behavior == d.Behavior {
			if r := s.Decision.DecidingRule(); r != nil {
				return r
			}
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
