package agent

import (
	"fmt"

	"github.com/reinsdev/reins/permission"
)

// BeginCommand adds rules of source command (a slash command's allowed-tools) to the context
// for the turn that starts now; end drops them and must be called when the turn ends, however
// it ends. The rules are kept beside the context, never in it, so no update, session record
// or resumed session carries them; a sub-agent's view sees them while the turn runs, as it
// sees every rule of its parent. Only one command drives a turn: a second BeginCommand before
// the first ends is refused.
func (p *Permissions) BeginCommand(rules []permission.Rule) (end func(), err error) {
	if p.derived() {
		return nil, fmt.Errorf("a sub-agent does not run slash commands")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.command != nil {
		return nil, fmt.Errorf("a slash command already drives this turn")
	}
	if _, err := p.pc.WithCommandRules(rules); err != nil {
		return nil, err
	}
	p.command = append([]permission.Rule{}, rules...)
	ended := false
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !ended {
			ended, p.command = true, nil
		}
	}, nil
}

// withCommand is pc with the running command's rules. Called with mu held.
func (p *Permissions) withCommand(pc *permission.Context) *permission.Context {
	if len(p.command) == 0 {
		return pc
	}
	n, err := pc.WithCommandRules(p.command)
	if err != nil {
		// The rules were accepted by BeginCommand; fail closed to the context without them.
		return pc
	}
	return n
}
