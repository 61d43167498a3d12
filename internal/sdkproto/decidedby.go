package sdkproto

import "github.com/reinsdev/reins/permission"

// decidedByLine is who decided a denied call, in the stream's snake_case: the engine's
// permission.DecidedBy as it is, field for field.
type decidedByLine struct {
	Kind          string `json:"kind"`
	Rule          string `json:"rule,omitempty"`
	RuleSource    string `json:"rule_source,omitempty"`
	RuleOrigin    string `json:"rule_origin,omitempty"`
	FrontEnd      string `json:"front_end,omitempty"`
	Hook          string `json:"hook,omitempty"`
	Mode          string `json:"mode,omitempty"`
	Setting       string `json:"setting,omitempty"`
	PolicyVersion string `json:"policy_version,omitempty"`
}

func decidedBy(by *permission.DecidedBy) *decidedByLine {
	if by == nil {
		return nil
	}
	return &decidedByLine{Kind: string(by.Kind), Rule: by.Rule, RuleSource: by.RuleSource, RuleOrigin: by.RuleOrigin, FrontEnd: by.FrontEnd,
		Hook: by.Hook, Mode: string(by.Mode), Setting: by.Setting, PolicyVersion: by.PolicyVersion}
}
