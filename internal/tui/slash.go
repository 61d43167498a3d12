package tui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/permission"
)

const helpText = `Commands:
  /permissions                          rules by source, with their files, and scoped approvals
  /permissions allow|ask|deny RULE [local|project|user|session]   add a rule (default local)
  /permissions remove allow|ask|deny RULE [local|project|user|session]
  /mode [MODE]                          show or set the permission mode
  /add-dir PATH                         add a working directory for this session
  /model [NAME]                         show or set the model of the next turns
  /status                               model, API and credential source (never the key)
  /cost                                 tokens and estimated price of this session
  /clear                                start over with an empty conversation
  /compact [INSTRUCTIONS]               summarize the conversation to free the context window
  /context                              what fills the context window
  /taint                                secret files read: network calls ask until /clear
  /resume [N|ID]                        pick one of this folder's sessions, or switch to one
  /rewind                               go back to before a message: files, chat or both
  /mcp [reconnect NAME]                 MCP servers, their state and tools; start one again
  /agents                               the agent types the Agent tool can start
  /skills                               the skills the model can load, and where they come from
  /memory [N|project|local|user]        list the memory files, or open one in $EDITOR
  /init                                 ask the model to write a CLAUDE.md for this project
  /exit, /quit                          leave the chat (the conversation stays on screen)
  /help                                 this help
`

// slash runs a slash command; its output joins the transcript.
func (m *Model) slash(line string) tea.Cmd {
	fields := strings.Fields(line)
	cmd, args := fields[0], fields[1:]
	switch cmd {
	case "/help":
		m.say(helpText + keys.help() + m.commandHelp() + m.promptHelp())
	case "/exit", "/quit":
		return m.quit()
	case "/permissions":
		m.permissionsCommand(args)
	case "/mode":
		m.modeCommand(args)
	case "/add-dir":
		m.addDirCommand(args)
	case "/model":
		m.modelCommand(args)
	case "/status":
		m.say(m.statusReport())
	case "/cost":
		m.say(m.spent.report())
	case "/clear":
		m.clearCommand()
	case "/compact":
		return m.compact(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), cmd)))
	case "/context":
		m.say(m.contextReport())
	case "/taint":
		m.say(taintReport(m.perms().Taint()))
	case "/mcp":
		text, cmd, err := m.mcpCommand(args)
		if err != nil {
			m.sayErr(err.Error())
			return nil
		}
		if text != "" {
			m.say(text)
		}
		return cmd
	case "/agents":
		m.say(m.agentsReport())
	case "/skills":
		m.say(m.skillsReport())
	case "/memory":
		return m.memoryCommand(args)
	case "/init":
		return m.initCommand()
	case "/resume":
		m.resumeCommand(args)
	case "/rewind":
		m.rewindCommand()
	default:
		if name, ok := strings.CutPrefix(cmd, "/"); ok && strings.HasPrefix(name, "mcp__") {
			return m.runPrompt(name, line, strings.TrimSpace(strings.TrimPrefix(line, cmd)))
		}
		if name, _ := strings.CutPrefix(cmd, "/"); m.customCommand(name) {
			return m.runCommand(name, line, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), cmd)))
		}
		m.sayErr(fmt.Sprintf("unknown command %s (try /help)", cmd))
	}
	return nil
}

// say adds a command's answer to the transcript; sayErr a command's failure.
func (m *transcript) say(s string) { m.entries = append(m.entries, &entry{kind: entryInfo, text: s}) }
func (m *transcript) sayErr(s string) {
	m.entries = append(m.entries, &entry{kind: entryError, text: s})
}

// permissionsCommand is /permissions: the report, or a rule added or removed first.
func (m *Model) permissionsCommand(args []string) {
	if len(args) > 0 {
		if err := m.editRules(args); err != nil {
			m.sayErr(err.Error())
			return
		}
	}
	m.say(m.permissionsReport())
}

// modeCommand is /mode: the mode and the cycle, or a new mode.
func (m *Model) modeCommand(args []string) {
	if len(args) == 0 {
		m.say(fmt.Sprintf("Mode: %s. Shift+Tab cycles default → acceptEdits → plan%s.", m.perms().Mode(), m.cycleExtra()))
		return
	}
	mode, err := permission.ParseMode(args[0])
	if err != nil {
		m.sayErr(err.Error())
		return
	}
	m.setMode(mode)
}

// addDirCommand is /add-dir: a working directory for this session.
func (m *Model) addDirCommand(args []string) {
	if len(args) != 1 {
		m.sayErr("usage: /add-dir PATH")
		return
	}
	dir := args[0]
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(m.cfg.Cwd, dir)
	}
	err := m.updatePermissions(permission.Update{Type: permission.AddDirectories, Destination: permission.SourceSession, Directories: []string{dir}})
	if err != nil {
		m.sayErr(err.Error())
		return
	}
	m.say("Added working directory " + dir + " for this session.")
}

// modelCommand is /model: the model, or another one for the next turns.
func (m *Model) modelCommand(args []string) {
	if len(args) == 0 {
		m.say(fmt.Sprintf("Model: %s (%s)", m.cfg.Agent.Model, m.cfg.Provider))
		return
	}
	if m.running {
		m.sayErr("wait for the turn to finish before changing the model")
		return
	}
	m.cfg.Agent.Model = args[0]
	m.say("Model for the next turns: " + args[0])
}

// clearCommand is /clear: the conversation, and the taint of the secrets it held, are gone.
func (m *Model) clearCommand() {
	if m.running {
		m.sayErr("wait for the turn to finish, or press Esc, before /clear")
		return
	}
	m.msgs, m.entries = nil, nil
	m.scrollback.follow()
	// The secrets read are gone with the conversation that held them.
	m.perms().Taint().Clear()
	m.say("Conversation cleared: the next message starts from nothing.")
}

// resumeCommand is /resume: the picker, or the session named by its number or id.
func (m *Model) resumeCommand(args []string) {
	if len(args) == 0 {
		text, err := m.openPicker()
		switch {
		case err != nil:
			m.sayErr(err.Error())
		case text != "":
			m.say(text)
		}
		return
	}
	if err := m.resume(args[0]); err != nil {
		m.sayErr(err.Error())
	}
}

// statusReport is /status: what the session talks to and with which credential (where it
// comes from, never what it is), where it works and in which mode.
func (m *Model) statusReport() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Model: %s (%s)\n", m.cfg.Agent.Model, m.cfg.Provider)
	fmt.Fprintf(&b, "API: %s\n", cmp.Or(m.cfg.BaseURL, "the provider's own API"))
	fmt.Fprintf(&b, "Credential: %s", cmp.Or(m.cfg.Credential, "unknown"))
	for _, n := range m.cfg.CredentialNotes {
		b.WriteString("\n  " + n)
	}
	fmt.Fprintf(&b, "\nSession: %s\nWorking directory: %s\nMode: %s", m.cfg.SessionID, m.cfg.Cwd, m.perms().Mode())
	return b.String()
}

// taintReport says whether the session read a secret file, and which.
func taintReport(t *permission.Taint) string {
	reads, more := t.Reads()
	if len(reads) == 0 {
		return "Not tainted: the session has read no secret file."
	}
	var b strings.Builder
	b.WriteString("Tainted: calls that can send data off the machine ask, in every mode, unless an allow rule names their destination (/clear ends it).")
	for _, r := range reads {
		b.WriteString("\n  " + r.String())
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n  and %d more", more)
	}
	return b.String()
}

func (m *Model) cycleExtra() string {
	pc := m.perms()
	s := ""
	if pc.BypassAvailable() {
		s += " → bypassPermissions"
	}
	if pc.AutoAvailable() {
		s += " → auto"
	}
	return s + " → default"
}

// permissionsReport lists the rules by source with the file each came from, the directories,
// and the scoped approvals with what is left of them.
func (m *Model) permissionsReport() string {
	pc := m.perms()
	var b strings.Builder
	fmt.Fprintf(&b, "Permission mode: %s\n", pc.Mode())
	bySource := map[permission.Source][]permission.Rule{}
	for _, r := range pc.Rules() {
		bySource[r.Source] = append(bySource[r.Source], r)
	}
	scopedRules := map[string]bool{}
	for _, g := range m.cfg.Agent.Permissions.Scoped() {
		for _, r := range g.Rules {
			scopedRules[permission.ParseRule(r).String()] = true
		}
	}
	for _, s := range permission.Sources {
		// Scoped approvals are listed on their own, with what is left of them.
		rs := slices.DeleteFunc(bySource[s], func(r permission.Rule) bool {
			return s == permission.SourceSession && scopedRules[r.Value.String()]
		})
		if len(rs) == 0 {
			continue
		}
		file := m.cfg.SettingsFiles[s]
		if file != "" {
			fmt.Fprintf(&b, "%s (%s):\n", s, m.destLabel(s))
		} else {
			fmt.Fprintf(&b, "%s:\n", s)
		}
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Behavior > rs[j].Behavior })
		for _, r := range rs {
			origin := r.Origin.String()
			if origin != "" {
				origin = "  " + origin
			}
			fmt.Fprintf(&b, "  %-5s %s%s\n", r.Behavior, r.Value, origin)
		}
	}
	if dirs := pc.AdditionalDirs(); len(dirs) > 0 {
		b.WriteString("Additional directories:\n")
		for _, d := range dirs {
			fmt.Fprintf(&b, "  %s (%s)\n", d.Path, d.Source)
		}
	}
	gs := m.cfg.Agent.Permissions.Scoped()
	if len(gs) > 0 {
		b.WriteString("Scoped approvals:\n")
		now := m.cfg.now()
		for _, g := range gs {
			var left []string
			if !g.Expires.IsZero() {
				left = append(left, fmtDur(g.Expires.Sub(now).Round(1e9))+" left")
			}
			if g.Calls > 0 {
				left = append(left, fmt.Sprintf("%d calls left", g.Calls))
			}
			fmt.Fprintf(&b, "  allow %s (%s)\n", strings.Join(g.Rules, ", "), strings.Join(left, ", "))
		}
	}
	b.WriteString(ignoredSection(m.cfg.ignored(), m.cfg.Cwd))
	b.WriteString("Add or remove: /permissions allow|ask|deny RULE [local|project|user|session] · /permissions remove …")
	return b.String()
}

func parseDest(s string) (permission.Source, error) {
	switch s {
	case "local":
		return permission.SourceLocal, nil
	case "project":
		return permission.SourceProject, nil
	case "user":
		return permission.SourceUser, nil
	case "session":
		return permission.SourceSession, nil
	}
	return 0, fmt.Errorf("unknown destination %q (local, project, user or session)", s)
}

// editRules adds or removes one rule: allow|ask|deny RULE [dest] or remove BEHAVIOR RULE [dest].
func (m *Model) editRules(args []string) error {
	typ := permission.AddRules
	if args[0] == "remove" {
		typ = permission.RemoveRules
		args = args[1:]
	}
	if len(args) < 2 {
		return fmt.Errorf("usage: /permissions [remove] allow|ask|deny RULE [local|project|user|session]")
	}
	var b permission.Behavior
	if err := b.UnmarshalText([]byte(args[0])); err != nil || b == permission.Passthrough {
		return fmt.Errorf("unknown behaviour %q (allow, ask or deny)", args[0])
	}
	dest := permission.SourceLocal
	ruleArgs := args[1:]
	if n := len(ruleArgs); n > 1 {
		if d, err := parseDest(ruleArgs[n-1]); err == nil {
			dest, ruleArgs = d, ruleArgs[:n-1]
		}
	}
	rule := permission.ParseRule(strings.Join(ruleArgs, " "))
	return m.updatePermissions(permission.Update{Type: typ, Destination: dest, Behavior: b, Rules: []permission.RuleValue{rule}})
}

func (m *Model) sessionsList() string {
	if m.cfg.Sessions == nil {
		return "No saved sessions."
	}
	ss, err := m.resumable()
	if err != nil {
		return "Cannot list sessions: " + err.Error()
	}
	if len(ss) == 0 {
		return "No saved sessions in this folder."
	}
	now := m.cfg.now()
	var b strings.Builder
	b.WriteString("Sessions of this folder (switch with /resume N or /resume ID):\n")
	for i, s := range ss {
		if i == 10 {
			fmt.Fprintf(&b, "  … and %d more\n", len(ss)-i)
			break
		}
		mark := " "
		if s.ID == m.cfg.SessionID {
			mark = "*"
		}
		fmt.Fprintf(&b, " %s %2d. %s  %s  (%s)\n", mark, i+1, truncRunes(s.Summary, 50), m.sessionDetail(s, now), s.ID)
	}
	return strings.TrimRight(b.String(), "\n")
}

// resume switches to another saved session of the folder, by its number in the /resume list
// or its id.
func (m *Model) resume(which string) error {
	if m.running {
		return fmt.Errorf("wait for the turn to finish, or press Esc, before /resume")
	}
	if m.cfg.Resume == nil {
		return fmt.Errorf("switching sessions is not available here; use reins --resume ID")
	}
	id := which
	if n, err := strconv.Atoi(which); err == nil && m.cfg.Sessions != nil {
		ss, err := m.resumable()
		if err != nil {
			return err
		}
		if n < 1 || n > len(ss) {
			return fmt.Errorf("no session %d (the list has %d)", n, len(ss))
		}
		id = ss[n-1].ID
	}
	msgs, err := m.cfg.Resume(id)
	if err != nil {
		return err
	}
	m.cfg.SessionID, m.cfg.History, m.msgs = id, msgs, msgs
	m.entries = entriesFromHistory(msgs, m.cfg.SubAgent)
	m.entries = append(m.entries, &entry{kind: entryInfo, text: fmt.Sprintf("Resumed session %s (%d messages)", id, len(msgs))})
	m.cards, m.stream = map[string]*entry{}, map[int]*entry{}
	m.scrollback.follow()
	return nil
}

func truncRunes(s string, n int) string {
	r := []rune(oneLine(s))
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return string(r)
}
