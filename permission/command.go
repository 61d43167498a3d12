package permission

import (
	"fmt"
	"slices"
)

// WithCommandRules is the context with rules as the whole of the command source: the rules a
// slash command brings (its allowed-tools) for the one turn it drives. Whatever command rules
// the receiver had are dropped, so WithCommandRules(nil) ends a command's turn.
//
// Only allow rules of source command are accepted: a command widens what its turn may do and
// never narrows or hides anything, and it is ranked as every allow rule is, below every deny
// and ask rule and below the safety checks. In auto mode its allow rules that would skip the
// classifier for code are set aside as every source's are (autoaside.go).
func (c *Context) WithCommandRules(rules []Rule) (*Context, error) {
	for i := range rules {
		if rules[i].Source != SourceCommand || rules[i].Behavior != Allow {
			return nil, fmt.Errorf("rule %s: a command brings allow rules of source command only", rules[i].Describe())
		}
	}
	n := c.clone()
	isCommand := func(r *Rule) bool { return r.Source == SourceCommand }
	n.rules = slices.DeleteFunc(n.rules, isCommand)
	store := slices.Clone(rules)
	for i := range store {
		r := &store[i]
		if err := r.compile(nil); err != nil {
			return nil, fmt.Errorf("rule %s: %w", r.Describe(), err)
		}
		n.rules = append(n.rules, r)
	}
	n.rules = dedupRules(n.rules)
	n.reindex()
	return n, nil
}
