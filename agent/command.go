package agent

import (
	"fmt"
	"slices"

	"github.com/reinsdev/reins/permission"
)

// commandLayer is one set of rules of source command: a slash command's allowed-tools, or a
// skill's from the moment the Skill tool loaded it. The command source of a turn is the union
// of its layers, so a slash command's turn that loads a skill holds both sets.
type commandLayer struct {
	id    uint64
	rules []permission.Rule
	// turn marks a layer that EndTurn drops (a skill's); a slash command's layer is dropped by
	// the end BeginCommand returned.
	turn bool
}

// BeginCommand adds rules of source command (a slash command's allowed-tools) to the context
// for the turn that starts now; end drops them and must be called when the turn ends, however
// it ends. The rules are kept beside the context, never in it, so no update, session record
// or resumed session carries them; a sub-agent's view sees them while the turn runs, as it
// sees every rule of its parent. They join whatever command rules the turn already has.
func (p *Permissions) BeginCommand(rules []permission.Rule) (end func(), err error) {
	if p.derived() {
		return nil, fmt.Errorf("a sub-agent does not run slash commands")
	}
	id, err := p.pushLayer(rules, false)
	if err != nil {
		return nil, err
	}
	return func() { p.dropLayers(func(l commandLayer) bool { return l.id == id }) }, nil
}

// AddTurnRules adds rules of source command for the rest of the turn that is running: a
// skill's allowed-tools from the moment the Skill tool loads it. They join the turn's other
// command rules and end with EndTurn, which [Agent.Run] calls however the turn ends. A
// sub-agent's rules are its own: its parent's turn never sees them, and they end with the
// sub-agent's run.
func (p *Permissions) AddTurnRules(rules []permission.Rule) error {
	_, err := p.pushLayer(rules, true)
	return err
}

// EndTurn drops the rules AddTurnRules added. Ending a turn twice is harmless.
func (p *Permissions) EndTurn() {
	p.dropLayers(func(l commandLayer) bool { return l.turn })
}

// pushLayer checks rules as WithCommandRules does and keeps them as a new layer.
func (p *Permissions) pushLayer(rules []permission.Rule, turn bool) (uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	base := p.pc
	if p.derived() {
		base = p.view(p.parent.Context())
	}
	if _, err := base.WithCommandRules(rules); err != nil {
		return 0, err
	}
	p.layerID++
	p.command = append(p.command, commandLayer{id: p.layerID, rules: slices.Clone(rules), turn: turn})
	return p.layerID, nil
}

func (p *Permissions) dropLayers(drop func(commandLayer) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.command = slices.DeleteFunc(p.command, drop)
}

// withCommand is pc with the union of the command layers, beside the command rules pc
// already has (a sub-agent's view of its parent's). Called with mu held.
func (p *Permissions) withCommand(pc *permission.Context) *permission.Context {
	if len(p.command) == 0 {
		return pc
	}
	var rules []permission.Rule
	for _, r := range pc.Rules() {
		if r.Source == permission.SourceCommand {
			rules = append(rules, r)
		}
	}
	for _, l := range p.command {
		rules = append(rules, l.rules...)
	}
	n, err := pc.WithCommandRules(rules)
	if err != nil {
		// Every layer was accepted when it was added; fail closed to the context without them.
		return pc
	}
	return n
}
