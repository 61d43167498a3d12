package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/permission"
)

// trustOfferMsg tells the chat that an answer saved rules to a settings file: in a folder that
// is not trusted, the project's files are read only once it is, so the chat says at once that
// the rules wait for the trust, and offers it.
type trustOfferMsg struct {
	updates []permission.Update
	dest    permission.Source
}

// offerTrust opens the trust offer for rules saved in an untrusted project's settings. The
// user's settings are read whatever the trust, and a trusted folder needs none.
func (m *Model) offerTrust(msg trustOfferMsg) {
	if m.cfg.Trusted || m.cfg.Trust == nil || (msg.dest != permission.SourceLocal && msg.dest != permission.SourceProject) {
		return
	}
	folder := m.cfg.Cwd
	m.picker = &menu{
		title: "This folder is not trusted",
		lines: []string{
			fmt.Sprintf("Saved %s in %s. It applies now, in this session; later sessions read this folder's settings only once you trust it — and then its hooks, MCP servers and other settings apply too.",
				describeSuggestions(msg.updates, 5), m.destLabel(msg.dest)),
			"Trust this folder now?",
		},
		items: []menuItem{{label: "Yes, trust " + folder, value: true}, {label: "Not now", value: false}},
		choose: func(m *Model, it menuItem) (*menu, tea.Cmd) {
			if it.value == false {
				m.say("Not trusted: the rule applies in this session only (reins trust " + folder + " trusts the folder later).")
				return nil, nil
			}
			if err := m.cfg.Trust(); err != nil {
				m.sayErr(fmt.Sprintf("could not trust %s: %v", folder, err))
				return nil, nil
			}
			m.cfg.Trusted = true
			m.say("Trusted " + folder + ": its settings, hooks and MCP servers apply from the next session.")
			return nil, nil
		},
		cancel: func(m *Model) {
			m.say("Not trusted: the rule applies in this session only (reins trust " + folder + " trusts the folder later).")
		},
	}
}
