package tui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/permission"
)

// permissionPrompt asks whether a tool call may run: the call's preview and what the analysis
// found, or with "?" the engine's whole trace; the choices the engine allows, the file an
// "always" writes (tab), and for Bash and Edit the input edited before it runs (e).
type permissionPrompt struct {
	prompt
	opts  []option
	dest  permission.Source
	trace bool
}

// newPermissionPrompt offers only what the engine allows.
func newPermissionPrompt(a askMsg) *permissionPrompt {
	d := &permissionPrompt{prompt: prompt{ask: a}, dest: permission.SourceLocal}
	if a.req.Tool == permission.SandboxNetworkTool {
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

// permissionKeys are the permission prompt's keys. Tab is not a move here: it picks the file
// an "always" writes.
var permissionKeys = struct {
	choiceKeys
	Dest, Why, Edit key.Binding
}{
	choiceKeys: choiceKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k", "shift+tab")),
		Down:   key.NewBinding(key.WithKeys("down", "j")),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "no")),
	},
	Dest: key.NewBinding(key.WithKeys("tab")),
	Why:  key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "why")),
	Edit: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit")),
}

func (d *permissionPrompt) Update(m *Model, msg tea.Msg) (bool, tea.Cmd) {
	return d.update(m, msg, d.key, d.submitText)
}

func (d *permissionPrompt) View(m *Model, width, height int) []string {
	return d.frame(m.r, d.parts(inner(m.r, width), m), width, height)
}

func (d *permissionPrompt) key(msg tea.KeyPressMsg, width int) (bool, answer, tea.Cmd) {
	ks := permissionKeys
	switch {
	case key.Matches(msg, ks.Dest):
		d.dest = nextDest(d.dest)
		return false, answer{}, nil
	case key.Matches(msg, ks.Why):
		d.trace, d.offset = !d.trace, 0
		return false, answer{}, nil
	case key.Matches(msg, ks.Edit):
		if field := editableField(d.ask.req.Tool); field != "" {
			return false, answer{}, d.startTyping(ansEdited, width, str(inputFields(d.ask.raw), field))
		}
		return false, answer{}, nil
	case key.Matches(msg, ks.Cancel):
		return true, answer{kind: ansNo}, nil
	}
	_, done, ans, cmd := d.listKey(msg, ks.choiceKeys, d.opts, func(o option) (bool, answer, tea.Cmd) {
		if o.kind == ansNoFeedback {
			return false, answer{}, d.startTyping(o.kind, width, "")
		}
		return true, answer{kind: o.kind, dest: d.dest}, nil
	})
	return done, ans, cmd
}

// submitText answers with the edited input, or with the person's words to the model.
func (d *permissionPrompt) submitText(msg tea.KeyPressMsg, width int) (bool, answer, tea.Cmd) {
	if d.purpose != ansEdited {
		return d.submitFeedback(msg, width)
	}
	m := inputFields(d.ask.raw)
	m[editableField(d.ask.req.Tool)] = d.text.Value()
	raw, err := json.Marshal(m)
	if err != nil {
		return false, answer{}, nil
	}
	return true, answer{kind: ansEdited, edited: raw}, nil
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

// permissionParts shows what the call will do, what the analysis found and why the engine
// asked — or, with "?", the whole decision trace — and the choices.
func (d *permissionPrompt) parts(r *renderer, m *Model) parts {
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
	after := []key.Binding{permissionKeys.Why}
	if editableField(d.ask.req.Tool) != "" {
		after = append(after, permissionKeys.Edit)
	}
	p.foot = append(p.foot, st.dim.Render(permissionKeys.hints(nil, after...)))
	return p
}

// permLabel names a permission choice, with the rules and the file it writes for "always".
func (d *permissionPrompt) permLabel(o option) string {
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
