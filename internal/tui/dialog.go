package tui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/reinsdev/reins/permission"
)

type dialogKind int

const (
	dialogPermission dialogKind = iota
	dialogPlan
	dialogQuestion
)

// option is one choice of a dialog.
type option struct {
	label string
	kind  answerKind
}

// dialog is an open ask. It is answered exactly once, through reply.
type dialog struct {
	kind dialogKind
	ask  askMsg
	// offset scrolls a body too long for the screen (pgup/pgdown).
	offset int
	opts   []option
	sel    int
	dest   permission.Source
	trace  bool

	// text is the free-text field (feedback, edit, "Other" answer); typing is what it is for.
	typing  bool
	purpose answerKind
	text    textarea.Model

	// prePlanMode is the mode plan mode was entered from (plan approval).
	prePlanMode permission.Mode

	// AskUserQuestion state.
	questions []question
	qi        int
	picked    map[int]bool
	answers   map[string]string
}

type question struct {
	Question    string `json:"question"`
	Header      string `json:"header"`
	MultiSelect bool   `json:"multiSelect"`
	Options     []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
}

// newDialog builds the dialog for an ask, offering only what the engine allows.
func newDialog(a askMsg) *dialog {
	d := &dialog{ask: a, dest: permission.SourceLocal, picked: map[int]bool{}, answers: map[string]string{}}
	switch a.req.Tool {
	case "ExitPlanMode":
		d.kind = dialogPlan
		return d
	case "AskUserQuestion":
		d.kind = dialogQuestion
		var in struct {
			Questions []question `json:"questions"`
		}
		json.Unmarshal(a.raw, &in)
		d.questions = in.Questions
		return d
	case permission.SandboxNetworkTool:
		// A host, not a call: this connection, the host for the session, or the host saved as
		// a WebFetch(domain:…) rule. Timed and counted grants have no meaning for a host.
		d.opts = []option{{"Yes", ansYes}, {"session", ansSession}, {"always", ansAlways}, {"No", ansNo}}
		return d
	}
	d.opts = []option{{"Yes", ansYes}}
	sugg := a.req.Decision.Suggestions
	rules := ruleStrings(sugg)
	safety := a.req.Decision.Reason != nil && a.req.Decision.Reason.Type == permission.ReasonSafetyCheck
	if len(sugg) > 0 && !safety && !onlySession(sugg) {
		d.opts = append(d.opts, option{"always", ansAlways})
		if _, ok := permission.MCPServerRule(a.req.Tool); ok {
			d.opts = append(d.opts, option{"always server", ansAlwaysServer})
		}
	}
	if len(sugg) > 0 {
		d.opts = append(d.opts, option{"session", ansSession})
	}
	if len(rules) > 0 {
		d.opts = append(d.opts,
			option{fmt.Sprintf("Yes, for %d minutes", int(scopedDuration.Minutes())), ansTimed},
			option{fmt.Sprintf("Yes, for the next %d calls", scopedCalls), ansCalls})
	}
	d.opts = append(d.opts, option{"No", ansNo}, option{"No, and tell Reins what to do instead", ansNoFeedback})
	return d
}

// onlySession reports whether every suggestion is a mode change, which only ever applies to
// the session (there is no file to remember it in).
func onlySession(ups []permission.Update) bool {
	for _, u := range ups {
		if u.Type != permission.SetMode {
			return false
		}
	}
	return true
}

// planOptions follow the mode plan was entered from.
func planOptions(prePlan permission.Mode) []option {
	var opts []option
	if prePlan == permission.ModeBypass || prePlan == permission.ModeAuto {
		opts = append(opts, option{"Yes, and return to " + prePlan.Title(), ansPlanRestore})
	}
	return append(opts,
		option{"Yes, and auto-accept edits", ansPlanAuto},
		option{"Yes, and manually approve edits", ansPlanManual},
		option{"No, keep planning", ansPlanKeep})
}

func newTextArea(width int, value string) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "  "
	ta.SetWidth(max(width-4, 10))
	ta.SetHeight(3)
	ta.KeyMap.InsertNewline = keys.Newline
	ta.SetValue(value)
	ta.Focus()
	return ta
}

// key handles a key press. It returns the answer when the dialog is done.
func (d *dialog) key(msg tea.KeyPressMsg, width int) (done bool, ans answer, cmd tea.Cmd) {
	if d.typing {
		switch msg.String() {
		case "esc":
			d.typing = false
			return false, ans, nil
		case "enter":
			return d.submitText()
		}
		d.text, cmd = d.text.Update(msg)
		return false, ans, cmd
	}
	if d.kind == dialogQuestion {
		return d.questionKey(msg, width)
	}
	opts := d.options()
	switch k := msg.String(); k {
	case "up", "k", "shift+tab":
		d.sel = (d.sel + len(opts) - 1) % len(opts)
	case "down", "j", "tab":
		if k == "tab" && d.kind == dialogPermission {
			d.dest = nextDest(d.dest)
			return false, ans, nil
		}
		d.sel = (d.sel + 1) % len(opts)
	case "?":
		d.trace, d.offset = !d.trace, 0
	case "pgdown":
		d.offset += 5
	case "pgup":
		d.offset = max(d.offset-5, 0)
	case "e":
		if field := editableField(d.ask.req.Tool); field != "" && d.kind == dialogPermission {
			d.typing, d.purpose = true, ansEdited
			d.text = newTextArea(width, str(inputFields(d.ask.raw), field))
			return false, ans, d.text.Focus()
		}
	case "esc":
		if d.kind == dialogPlan {
			return d.choose(option{kind: ansPlanKeep}, width)
		}
		return true, answer{kind: ansNo}, nil
	case "enter":
		return d.choose(opts[d.sel], width)
	default:
		if len(k) == 1 && k[0] >= '1' && k[0] <= '9' {
			if i := int(k[0] - '1'); i < len(opts) {
				d.sel = i
				return d.choose(opts[i], width)
			}
		}
	}
	return false, ans, nil
}

func (d *dialog) options() []option {
	if d.kind == dialogPlan {
		return planOptions(d.prePlan())
	}
	return d.opts
}

func (d *dialog) prePlan() permission.Mode { return d.prePlanMode }

func (d *dialog) choose(o option, width int) (bool, answer, tea.Cmd) {
	switch o.kind {
	case ansNoFeedback, ansPlanKeep:
		d.typing, d.purpose = true, o.kind
		d.text = newTextArea(width, "")
		return false, answer{}, d.text.Focus()
	}
	return true, answer{kind: o.kind, dest: d.dest}, nil
}

func (d *dialog) submitText() (bool, answer, tea.Cmd) {
	v := d.text.Value()
	switch d.purpose {
	case ansEdited:
		m := inputFields(d.ask.raw)
		m[editableField(d.ask.req.Tool)] = v
		raw, err := json.Marshal(m)
		if err != nil {
			return false, answer{}, nil
		}
		return true, answer{kind: ansEdited, edited: raw}, nil
	case ansQuestions:
		d.answers[d.questions[d.qi].Question] = strings.TrimSpace(v)
		d.typing = false
		return d.nextQuestion()
	}
	return true, answer{kind: d.purpose, feedback: v}, nil
}

// editableField is the input field a person may change before a call runs.
func editableField(toolName string) string {
	switch toolName {
	case "Bash":
		return "command"
	case "Edit":
		return "new_string"
	}
	return ""
}

func nextDest(s permission.Source) permission.Source {
	switch s {
	case permission.SourceLocal:
		return permission.SourceProject
	case permission.SourceProject:
		return permission.SourceUser
	}
	return permission.SourceLocal
}

func (d *dialog) questionKey(msg tea.KeyPressMsg, width int) (bool, answer, tea.Cmd) {
	if d.qi >= len(d.questions) {
		return true, answer{kind: ansQuestions, answers: d.answers}, nil
	}
	q := d.questions[d.qi]
	n := len(q.Options) + 1 // "Other"
	switch k := msg.String(); k {
	case "up", "k":
		d.sel = (d.sel + n - 1) % n
	case "down", "j", "tab":
		d.sel = (d.sel + 1) % n
	case "esc":
		return true, answer{kind: ansNo}, nil
	case "space":
		if q.MultiSelect && d.sel < len(q.Options) {
			d.picked[d.sel] = !d.picked[d.sel]
		}
	case "enter":
		if d.sel == len(q.Options) {
			d.typing, d.purpose = true, ansQuestions
			d.text = newTextArea(width, "")
			return false, answer{}, d.text.Focus()
		}
		if q.MultiSelect {
			var labels []string
			idx := make([]int, 0, len(d.picked))
			for i, on := range d.picked {
				if on {
					idx = append(idx, i)
				}
			}
			sort.Ints(idx)
			for _, i := range idx {
				labels = append(labels, q.Options[i].Label)
			}
			if len(labels) == 0 {
				labels = append(labels, q.Options[d.sel].Label)
			}
			d.answers[q.Question] = strings.Join(labels, ", ")
		} else {
			d.answers[q.Question] = q.Options[d.sel].Label
		}
		return d.nextQuestion()
	}
	return false, answer{}, nil
}

func (d *dialog) nextQuestion() (bool, answer, tea.Cmd) {
	d.qi++
	d.sel = 0
	d.picked = map[int]bool{}
	if d.qi >= len(d.questions) {
		return true, answer{kind: ansQuestions, answers: d.answers}, nil
	}
	return false, answer{}, nil
}

// view renders the dialog into at most height lines of width columns.
// parts are the sections of a dialog: the body gives way when the screen is small.
type parts struct{ head, body, opts, foot []string }

func (d *dialog) view(outer *renderer, m *Model, width, height int) []string {
	// The dialog's text wraps inside its border.
	r := &renderer{st: outer.st, width: max(width-4, 10), now: outer.now}
	st := r.st
	var p parts
	switch d.kind {
	case dialogPermission:
		p = d.permissionParts(r, m)
	case dialogPlan:
		p = d.planParts(r)
	case dialogQuestion:
		p = d.questionParts(r, width)
	}
	if d.typing {
		prompt := map[answerKind]string{
			ansEdited:     "Edit, then enter to run it (the engine checks it again) · esc back",
			ansNoFeedback: "Tell Reins what to do instead · enter send · esc back",
			ansPlanKeep:   "What should change in the plan? · enter send · esc back",
			ansQuestions:  "Your answer · enter send · esc back",
		}[d.purpose]
		p.opts = append(p.opts, "", st.title.Render(prompt))
		p.opts = append(p.opts, strings.Split(d.text.View(), "\n")...)
		p.foot = nil
	}
	// The options and hints always show; the body gives way on a small screen.
	room := max(height-2-len(p.head)-len(p.opts)-len(p.foot), 0)
	body := p.body
	if len(body) > room && d.offset > 0 {
		d.offset = min(d.offset, len(body)-room)
		body = body[d.offset:]
	}
	if len(body) > room {
		cut := len(body) - room
		body = body[:room]
		if room > 0 {
			body[room-1] = st.dim.Render(fmt.Sprintf("  … %d more lines (pgdown)", cut+1))
		}
	}
	lines := append(append(append(p.head, body...), p.opts...), p.foot...)
	inner := max(width-4, 10)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	box := st.border.Width(width).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}

// permissionParts shows what the call will do, what the analysis found and why the engine
// asked — or, with "?", the whole decision trace — and the choices.
func (d *dialog) permissionParts(r *renderer, m *Model) parts {
	st := r.st
	var p parts
	// Paths inside the project are shown relative to it: shorter, and what the person knows.
	rel := func(s string) string {
		if m.cfg.Cwd == "" {
			return s
		}
		return strings.ReplaceAll(s, m.cfg.Cwd+string(filepath.Separator), "")
	}
	title, pv := r.preview(d.ask.req.Tool, d.ask.raw, m.cfg.Cwd)
	p.head = append(p.head, st.accent.Render(title))
	if d.trace {
		// The rules that were not applied come first: they are often the whole answer.
		if len(d.ask.ignored) > 0 {
			p.body = append(p.body, st.title.Render("Ignored rules that could have decided this call:"))
			for _, l := range d.ask.ignored {
				p.body = append(p.body, r.wrap("• "+rel(l), 2)...)
			}
			p.body = append(p.body, "")
		}
		for _, l := range formatTrace(d.ask.trace) {
			p.body = append(p.body, rel(l))
		}
	} else {
		p.body = append(p.body, pv...)
		if fs := findings(d.ask.trace); len(fs) > 0 {
			p.body = append(p.body, "", st.title.Render("The analysis found:"))
			for _, f := range fs {
				p.body = append(p.body, r.wrap("• "+rel(f), 2)...)
			}
		}
		if msg := d.ask.req.Decision.Message; msg != "" {
			p.body = append(p.body, "")
			p.body = append(p.body, r.wrap(st.warn.Render(rel(msg)), 0)...)
		}
		p.body = append(p.body, damageLines(r, d.ask.req.Decision.Damage, rel)...)
	}
	p.opts = append(p.opts, "", "Do you want to proceed?")
	for i, o := range d.opts {
		p.opts = append(p.opts, d.optLine(r, i, d.permLabel(o)))
		// Under the last of the choices that write a settings file.
		if (o.kind == ansAlways || o.kind == ansAlwaysServer) && (i+1 == len(d.opts) || d.opts[i+1].kind != ansAlwaysServer) {
			p.opts = append(p.opts, "      "+st.dim.Render("saved in "+m.destLabel(d.dest)+" (tab: local / project / user)"))
		}
	}
	hints := "↑↓ select · enter confirm · esc no · ? why"
	if editableField(d.ask.req.Tool) != "" {
		hints += " · e edit"
	}
	p.foot = append(p.foot, st.dim.Render(hints))
	return p
}

func (d *dialog) planParts(r *renderer) parts {
	var p parts
	p.head = append(p.head, r.st.accent.Render("Ready to code? Here is the plan:"))
	plan := str(inputFields(d.ask.raw), "plan")
	p.body = append(p.body, strings.Split(r.markdown(plan), "\n")...)
	p.opts = append(p.opts, "", "Would you like to proceed?")
	for i, o := range d.options() {
		p.opts = append(p.opts, d.optLine(r, i, o.label))
	}
	p.foot = append(p.foot, r.st.dim.Render("↑↓ select · enter confirm · esc keep planning"))
	return p
}

func (d *dialog) questionParts(r *renderer, width int) parts {
	var p parts
	if d.qi >= len(d.questions) {
		return p
	}
	st := r.st
	q := d.questions[d.qi]
	chip := q.Header
	if len(d.questions) > 1 {
		chip = fmt.Sprintf("%s (%d/%d)", chip, d.qi+1, len(d.questions))
	}
	p.head = append(p.head, st.accent.Render(chip))
	p.body = append(p.body, r.wrap(st.title.Render(q.Question), 0)...)
	if q.MultiSelect {
		p.body = append(p.body, st.dim.Render("(choose any)"))
	}
	for i, o := range q.Options {
		box := ""
		if q.MultiSelect {
			box = "[ ] "
			if d.picked[i] {
				box = "[x] "
			}
		}
		p.opts = append(p.opts, d.optLine(r, i, box+o.Label))
		if o.Description != "" {
			p.opts = append(p.opts, "      "+st.dim.Render(ansi.Truncate(o.Description, max(width-8, 8), "…")))
		}
	}
	p.opts = append(p.opts, d.optLine(r, len(q.Options), "Other (type your own answer)"))
	hints := "↑↓ select · enter choose · esc decline"
	if q.MultiSelect {
		hints = "↑↓ select · space toggle · enter confirm · esc decline"
	}
	p.foot = append(p.foot, st.dim.Render(hints))
	return p
}

func (d *dialog) optLine(r *renderer, i int, label string) string {
	if i == d.sel {
		return r.st.selected.Render(fmt.Sprintf("❯ %d. %s", i+1, label))
	}
	return fmt.Sprintf("  %d. %s", i+1, label)
}

// permLabel names a permission choice, with the rules and the file it writes for "always".
func (d *dialog) permLabel(o option) string {
	sugg := d.ask.req.Decision.Suggestions
	if d.ask.req.Tool == permission.SandboxNetworkTool {
		host := str(inputFields(d.ask.raw), "host")
		switch o.kind {
		case ansYes:
			return "Yes, this connection"
		case ansSession:
			return "Yes, and allow " + host + " for this session"
		case ansAlways:
			return "Yes, and always allow " + host + " (" + describeSuggestions(sugg, 1) + ")"
		}
	}
	switch o.kind {
	case ansAlways:
		return "Yes, and don't ask again for " + describeSuggestions(sugg, 5)
	case ansAlwaysServer:
		rv, _ := permission.MCPServerRule(d.ask.req.Tool)
		return "Yes, and don't ask again for every tool of " + strings.TrimPrefix(rv.Tool, "mcp__") + " (" + rv.String() + ")"
	case ansSession:
		if onlySession(sugg) {
			return "Yes, and " + describeSuggestions(sugg, 5)
		}
		return "Yes, for this session: " + describeSuggestions(sugg, 5)
	}
	return o.label
}

// describeSuggestions names at most n suggested updates.
func describeSuggestions(ups []permission.Update, n int) string {
	var parts []string
	for _, u := range ups {
		switch u.Type {
		case permission.AddRules:
			for _, r := range u.Rules {
				parts = append(parts, r.String())
			}
		case permission.AddDirectories:
			for _, dir := range u.Directories {
				parts = append(parts, "files in "+dir)
			}
		case permission.SetMode:
			parts = append(parts, "switch to "+u.Mode.Title()+" mode")
		}
	}
	if len(parts) > n {
		parts = append(parts[:n], fmt.Sprintf("%d more", len(parts)-n))
	}
	return strings.Join(parts, ", ")
}

// damageLines show what a Bash command would destroy (bashrules' damage count): the total,
// the first paths, and the files git cannot bring back named as such.
func damageLines(r *renderer, dmg *permission.Damage, rel func(string) string) []string {
	if dmg == nil || (dmg.Files == 0 && dmg.Unknown == "") {
		return nil
	}
	st := r.st
	head := "It would delete or overwrite "
	if dmg.AtLeast {
		head += "at least "
	}
	out := []string{"", st.title.Render(fmt.Sprintf("%s%s (%s):", head, count(int(dmg.Files), "file"), humanBytes(dmg.Bytes)))}
	const show = 5
	for _, p := range dmg.Paths[:min(show, len(dmg.Paths))] {
		out = append(out, r.wrap("• "+rel(p), 2)...)
	}
	if more := dmg.Files - int64(min(show, len(dmg.Paths))); more > 0 {
		out = append(out, st.dim.Render(fmt.Sprintf("  … and %d more", more)))
	}
	if dmg.Ignored > 0 || dmg.Untracked > 0 {
		out = append(out, r.wrap(st.warn.Render(fmt.Sprintf("%d ignored and %d untracked by git: git cannot bring them back.", dmg.Ignored, dmg.Untracked)), 0)...)
		for _, p := range dmg.IgnoredPaths[:min(3, len(dmg.IgnoredPaths))] {
			out = append(out, r.wrap("• ignored: "+rel(p), 2)...)
		}
	}
	if dmg.Unknown != "" {
		out = append(out, r.wrap(st.warn.Render("Not fully counted: "+dmg.Unknown), 0)...)
	}
	return out
}

// humanBytes writes a size for people.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
