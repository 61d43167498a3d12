package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/permission"
)

// planApproval asks whether to leave plan mode and carry out the plan (ExitPlanMode): the
// plan, and the modes to go on in. No keeps planning, with the person's words on the plan.
type planApproval struct {
	prompt
	// prePlanMode is the mode plan mode was entered from.
	prePlanMode permission.Mode
}

// options follow the mode plan was entered from.
func (d *planApproval) options() []option {
	var opts []option
	if pre := d.prePlanMode; pre == permission.ModeBypass || pre == permission.ModeAuto {
		opts = append(opts, option{"Yes, and return to " + pre.Title(), ansPlanRestore})
	}
	return append(opts,
		option{"Yes, and auto-accept edits", ansPlanAuto},
		option{"Yes, and manually approve edits", ansPlanManual},
		option{"No, keep planning", ansPlanKeep})
}

// planKeys are the plan approval's keys; esc keeps planning.
var planKeys = choiceKeys{
	Up:     key.NewBinding(key.WithKeys("up", "k", "shift+tab")),
	Down:   key.NewBinding(key.WithKeys("down", "j", "tab")),
	Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
	Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "keep planning")),
}

func (d *planApproval) Update(m *Model, msg tea.Msg) (bool, tea.Cmd) {
	return d.update(m, msg, d.key, d.submitFeedback)
}

func (d *planApproval) key(msg tea.KeyPressMsg, width int) (bool, answer, tea.Cmd) {
	choose := func(o option) (bool, answer, tea.Cmd) {
		if o.kind == ansPlanKeep {
			return false, answer{}, d.startTyping(o.kind, width, "")
		}
		return true, answer{kind: o.kind}, nil
	}
	if key.Matches(msg, planKeys.Cancel) {
		return choose(option{kind: ansPlanKeep})
	}
	_, done, ans, cmd := d.listKey(msg, planKeys, d.options(), choose)
	return done, ans, cmd
}

func (d *planApproval) View(m *Model, width, height int) []string {
	r := inner(m.r, width)
	var p parts
	p.head = append(p.head, r.st.accent.Render("Ready to code? Here is the plan:"))
	plan := str(inputFields(d.ask.raw), "plan")
	p.body = append(p.body, strings.Split(r.markdown(plan), "\n")...)
	p.opts = append(p.opts, "", "Would you like to proceed?")
	for i, o := range d.options() {
		p.opts = append(p.opts, d.optLine(r, i, o.label))
	}
	p.foot = append(p.foot, r.st.dim.Render(planKeys.hints(nil)))
	return d.frame(m.r, p, width, height)
}
