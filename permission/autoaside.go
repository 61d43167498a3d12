package permission

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Auto mode's classifier judges what an allow rule would otherwise let through unseen: code
// run by an interpreter, a shell, a launcher or a wrapper of one, and sub-agents. Such allow
// rules are set aside while auto mode is active (auto, or plan entered from auto), whatever
// their source — the settings files, flags, --allowedTools, the session, a command's or a
// skill's allowed-tools — and however the session reached auto: the flag, the settings'
// defaultMode, a mode change, a resumed session. They are set aside where a call is decided,
// not where the mode changes: the engine decides every call of auto mode in a view of the
// context without them, so no way into auto can keep one.

// AutoGuard is implemented by a tool whose allow rules can let code run that auto mode's
// classifier should judge (the Bash tool). The tool knows what its rules allow; the engine asks
// it of each of the tool's allow rules in auto mode.
type AutoGuard interface {
	// SetAsideInAuto says why the allow rule (for this tool; content "" is tool-wide) is set
	// aside in auto mode, or "" to keep it.
	SetAsideInAuto(v RuleValue) string
}

// setAsideWhy says why an allow rule of tool t is set aside in auto mode, or "". Every Agent
// allow rule is, as in Claude Code; a tool that is no AutoGuard has its rules judged by
// IsDangerousAllowRule, Claude Code's list.
func setAsideWhy(t Checker, r *Rule) string {
	if r.Behavior != Allow {
		return ""
	}
	if g, ok := t.(AutoGuard); ok {
		return g.SetAsideInAuto(r.Value)
	}
	if IsDangerousAllowRule(r.Value) {
		return "Claude Code sets this rule aside in auto mode"
	}
	return ""
}

// autoView is the rule state of a context with one tool's set-aside rules taken out, shared
// by every context with the same rules (it is kept in their memo).
type autoView struct {
	rules, aside []*Rule
	why          []string
	index        ruleIndex
	memo         *sync.Map
}

type autoViewKey struct{ tool string }

// SetAside lists the allow rules auto mode sets aside for calls of tool t, each with why.
func (c *Context) SetAside(t Checker) []SetAsideRule {
	v := c.autoView(t)
	out := make([]SetAsideRule, len(v.aside))
	for i, r := range v.aside {
		out[i] = SetAsideRule{Rule: *r, Why: v.why[i]}
	}
	return out
}

// SetAsideRule is an allow rule auto mode sets aside, and why.
type SetAsideRule struct {
	Rule Rule
	Why  string
}

func (c *Context) autoView(t Checker) *autoView {
	return c.Memo(autoViewKey{t.Name()}, func() any {
		v := &autoView{memo: &sync.Map{}}
		for _, r := range c.rules {
			if r.Value.Tool != t.Name() {
				v.rules = append(v.rules, r)
				continue
			}
			if why := setAsideWhy(t, r); why != "" {
				v.aside = append(v.aside, r)
				v.why = append(v.why, why)
				continue
			}
			v.rules = append(v.rules, r)
		}
		v.index = buildIndex(v.rules)
		return v
	}).(*autoView)
}

// withoutSetAside is c as a call of t is decided in auto mode: the same context without the
// allow rules set aside for t. It has a memo of its own, as its rules differ.
func (c *Context) withoutSetAside(ctx context.Context, t Checker) *Context {
	v := c.autoView(t)
	if len(v.aside) == 0 {
		return c
	}
	if Tracing(ctx) {
		names := make([]string, len(v.aside))
		for i, r := range v.aside {
			names[i] = fmt.Sprintf("%s (%s)", r.Describe(), v.why[i])
		}
		Note(ctx, Step{Name: "auto: rules set aside", Outcome: "skip", Detail: strings.Join(names, "; ")})
	}
	n := *c
	n.rules, n.index, n.memo = v.rules, v.index, v.memo
	return &n
}

// autoActive reports whether auto mode's classifier decides the context's asks.
func (c *Context) autoActive() bool {
	return c.mode == ModeAuto || (c.mode == ModePlan && c.prePlanMode == ModeAuto)
}
