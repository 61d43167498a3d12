package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// Messages from outside the program.
type (
	busMsg      struct{ ev agent.Event }
	turnDoneMsg struct {
		res *agent.Result
		err error
		// cause is why the turn's context ended, if it did (errSaidNo: a plain No).
		cause error
	}
	tickMsg struct{}
)

// Model is the Bubble Tea model of the interactive mode.
type Model struct {
	cfg  *Config
	ctx  context.Context
	r    *renderer
	turn *sync.WaitGroup
	// stopper stops the running turn from the agent's goroutine (the asker's No); fence
	// holds a turn's end until the program has drawn the turn's last event.
	stopper *stopper
	fence   *fence

	width, height int
	// transcript is what the conversation shows (transcript.go).
	transcript

	input inputBox

	// turnEnd ends the custom command driving the running turn (its rules are dropped).
	turnEnd func()

	msgs    []llm.Message
	running bool
	cancel  context.CancelFunc
	// overlays are the prompts waiting for the person and the open picker (overlay.go).
	overlays
	ctrlC bool
	// quitting is set when the person quit (Ctrl+C twice, /exit): the transcript is left in
	// the terminal's scrollback.
	quitting bool
	// scrollback is the transcript's window and where it is scrolled to.
	scrollback scrollback
	// queued are messages typed while a turn ran; they are sent together when it ends.
	queued []string

	// spent is what the turns cost.
	spent tally
	// ctxUsage is how full the context window is, as last measured or estimated.
	ctxUsage agent.ContextUsage

	// points are the messages /rewind can go back to.
	points []rewindPoint
	// stopping is the line of an interrupt in progress, which the end of the turn updates.
	stopping *entry
	// retrying is the line of the model API's retries, until the model answers or the turn
	// ends.
	retrying *entry

	// status is the settings' status command's state (statusline.go).
	status statusState
}

func newModel(ctx context.Context, cfg *Config) *Model {
	m := &Model{
		cfg:        cfg,
		ctx:        ctx,
		turn:       &sync.WaitGroup{},
		stopper:    &stopper{},
		transcript: newTranscript(),
		msgs:       cfg.History,
		width:      80, height: 24,
	}
	// Without colour the dark style is still right: Bubble Tea's colour profile strips the
	// colours and keeps bold and italics.
	m.r = &renderer{st: newStyles(true), width: m.width, now: cfg.now}
	m.entries = entriesFromHistory(cfg.History, cfg.SubAgent)
	var sent []string
	for _, e := range m.entries {
		if e.kind == entryUser {
			sent = append(sent, e.text)
		}
	}
	if len(cfg.History) > 0 {
		m.entries = append(m.entries, &entry{kind: entryInfo, text: fmt.Sprintf("Resumed session %s (%d messages)", cfg.SessionID, len(cfg.History))})
	}
	if cfg.Memory != nil && cfg.Memory().Untrusted {
		m.entries = append(m.entries, &entry{kind: entryInfo, text: untrustedMemoryNote})
	}
	m.input = newInputBox(sent)
	m.resize()
	return m
}

// Init asks the terminal for its background colour, so the styles suit a light one, and sends
// the first message when one was given on the command line.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.input.Focus()}
	if p := strings.TrimSpace(m.cfg.Prompt); p != "" {
		m.input.push(p)
		if name, args, ok := strings.Cut(strings.TrimPrefix(p, "/")+" ", " "); ok && strings.HasPrefix(p, "/") && m.customCommand(name) {
			// reins "/review main" runs the command, as the same line typed would.
			return tea.Batch(append(cmds, m.runCommand(name, p, strings.TrimSpace(args)))...)
		}
		m.entries = append(m.entries, &entry{kind: entryUser, text: p})
		cmds = append(cmds, m.startTurn(llm.UserText(p)))
	}
	return tea.Batch(cmds...)
}

func (m *Model) perms() *permission.Context { return m.cfg.Agent.Permissions.Context() }

func (m *Model) resize() {
	m.r.width = m.width
	m.r.md = nil
	m.input.resize(m.width)
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case tea.BackgroundColorMsg:
		m.r.st = newStyles(msg.IsDark())
		m.r.md = nil
		m.invalidate()
		return m, nil
	case busMsg:
		m.event(msg.ev)
		if msg.ev.Type == agent.EventResult && msg.ev.ParentToolUseID == "" {
			m.fence.reached(msg.ev.Result)
		}
		return m, nil
	case turnDoneMsg:
		return m, m.turnDone(msg)
	case trustOfferMsg:
		m.offerTrust(msg)
		return m, nil
	case tickMsg:
		if !m.running {
			return m, nil
		}
		return m, tick()
	case askMsg:
		if c := m.cards[m.cardFor(msg)]; c != nil {
			c.progress = "waiting for your answer"
			c.touch()
		} else if sc, top := m.subCallFor(msg.req.Tool); sc != nil {
			sc.progress = "waiting for your answer"
			top.touch()
		}
		m.queue(newPrompt(msg, m.perms().PrePlanMode()))
		return m, nil
	case withdrawMsg, withdrawFormMsg:
		m.withdraw(msg)
		return m, nil
	case editorDone:
		m.editorDone(msg)
		return m, nil
	case commandMsg:
		return m, m.commandReady(msg)
	case promptMsg:
		return m, m.promptReady(msg)
	case reconnectDone:
		return m, m.reconnected(msg)
	case elicitMsg:
		m.queue(newForm(msg))
		return m, nil
	case noticeMsg:
		m.notice(msg)
		return m, nil
	case tea.PasteMsg:
		if len(m.asks) > 0 {
			return m, m.overlayUpdate(m.asks[0], msg)
		}
		m.input.insert(msg.Content)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.MouseWheelMsg:
		m.scrollback.update(m.r, m.entries, m.width, msg)
		return m, nil
	}
	// The rest (the cursor's blinking) is the text field's that has the focus.
	if e, ok := m.active().(interface{ editing() bool }); ok && e.editing() {
		return m, m.overlayUpdate(m.active(), msg)
	}
	return m, m.input.update(msg)
}

// cardFor finds the tool card an ask is about: its tool_use's, or else the oldest pending
// card of that tool.
func (m *transcript) cardFor(a askMsg) string {
	if a.useID != "" {
		if _, ok := m.cards[a.useID]; ok {
			return a.useID
		}
		return ""
	}
	for _, e := range m.entries {
		if e.kind == entryTool && e.status == toolPending && e.toolName == a.req.Tool {
			return e.toolID
		}
	}
	return ""
}

func (m *transcript) invalidate() {
	for _, e := range m.entries {
		e.touch()
	}
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

// key goes to the active overlay if there is one, else to the transcript's page keys, the
// chat's keys and the input, in that order; ctrl+c is always the chat's.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	// The key's name is worked out once, not once for each binding it is matched against.
	k := keyName(msg.String())
	quit := key.Matches(k, keys.Quit)
	if !quit {
		m.ctrlC = false
	}
	m.input.completions = nil
	if quit {
		return m.ctrlCPressed()
	}
	if o := m.active(); o != nil {
		return m.overlayUpdate(o, msg)
	}
	if m.scrollback.update(m.r, m.entries, m.width, msg) {
		return nil
	}
	switch {
	case key.Matches(k, keys.Interrupt):
		if m.running && m.cancel != nil {
			m.interrupt()
		}
		return nil
	case key.Matches(k, keys.Mode):
		m.cycleMode()
		return nil
	case key.Matches(k, keys.Expand):
		m.r.expanded = !m.r.expanded
		return nil
	case key.Matches(k, keys.Complete):
		m.complete()
		return nil
	case key.Matches(k, keys.Send):
		return m.submit()
	case key.Matches(k, keys.History):
		if m.input.browse(k == "up") {
			return nil
		}
	}
	return m.input.update(msg)
}

// complete completes the /command or @path before the cursor and lists the candidates.
func (m *Model) complete() {
	v, cands, ok := m.completeSlash(m.input.Value())
	if !ok {
		v, cands = completePath(m.input.Value(), m.cfg.Cwd)
	}
	if v != m.input.Value() {
		m.input.set(v)
	}
	m.input.completions = cands
}

// ctrlCPressed clears the input, or interrupts the running turn, or asks for a second press,
// or quits: as in Claude Code, only an idle chat with an empty prompt quits, on the second
// press.
func (m *Model) ctrlCPressed() tea.Cmd {
	if m.running && m.cancel != nil {
		// One press stops the turn, and what is typed stays for the next message. An open
		// dialog is the turn's: the abort withdraws it.
		m.ctrlC = false
		m.interrupt()
		return nil
	}
	if _, ok := m.picker.(*menu); ok {
		m.picker = nil
		return nil
	}
	if m.input.Value() != "" && len(m.asks) == 0 {
		m.input.clear()
		return nil
	}
	if !m.ctrlC {
		m.ctrlC = true
		return nil
	}
	return m.quit()
}

// quit ends the chat: the running turn is aborted and every open question answered, so that
// nothing waits on the program once it is gone.
func (m *Model) quit() tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	for _, a := range m.asks {
		a.refuse()
	}
	m.asks = nil
	m.quitting = true
	return tea.Quit
}

// cycleMode moves to the next mode of the Shift+Tab cycle, through the engine's transition.
func (m *Model) cycleMode() {
	pc := m.perms()
	next := permission.NextMode(pc.Mode(), pc.BypassAvailable(), pc.AutoAvailable())
	m.setMode(next)
}

func (m *Model) setMode(to permission.Mode) {
	err := m.updatePermissions(permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: to})
	if err != nil {
		m.entries = append(m.entries, &entry{kind: entryError, text: fmt.Sprintf("cannot switch to %s: %v", to, err)})
	}
}

func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return nil
	}
	if strings.HasPrefix(text, "/") {
		m.input.clear()
		m.input.push(text)
		return m.slash(text)
	}
	m.input.clear()
	m.input.push(text)
	if m.running {
		// Sent when the turn ends, as the next prompt.
		m.queued = append(m.queued, text)
		return nil
	}
	m.scrollback.follow()
	m.entries = append(m.entries, &entry{kind: entryUser, text: text})
	return m.startTurn(llm.UserText(text))
}

// startTurn runs the agent on its own goroutine; the program hears of it through the bus and
// the turnDoneMsg it returns.
func (m *Model) startTurn(prompt llm.Message) tea.Cmd { return m.startTurnAs(prompt, prompt.Text()) }

// startTurnAs is startTurn for a prompt the person wrote as label (a custom command's line,
// /review 42, whose expansion is the prompt): /rewind shows the label and puts it back.
func (m *Model) startTurnAs(prompt llm.Message, label string) tea.Cmd {
	ctx, cancel := context.WithCancelCause(m.beginPoint(m.ctx, label))
	m.running, m.cancel = true, func() { cancel(nil) }
	m.stopper.set(cancel)
	m.stream = map[int]*entry{}
	history := m.msgs
	a := m.cfg.Agent
	m.turn.Add(1)
	run := func() tea.Msg {
		defer m.turn.Done()
		defer cancel(nil)
		res, err := a.Run(ctx, history, prompt)
		m.fence.wait(res)
		return turnDoneMsg{res: res, err: err, cause: context.Cause(ctx)}
	}
	return tea.Batch(run, tick())
}

func (m *Model) turnDone(msg turnDoneMsg) tea.Cmd {
	m.running, m.cancel = false, nil
	if m.turnEnd != nil {
		// The command that drove the turn ends with it: its rules are dropped.
		m.turnEnd()
		m.turnEnd = nil
	}
	m.stopper.set(nil)
	m.finishStreams()
	defer func() { m.stopping, m.retrying = nil, nil }()
	if msg.res != nil {
		if msg.res.Messages != nil {
			m.msgs = msg.res.Messages
		}
		m.spent.add(msg.res)
		m.ctxUsage = m.cfg.Agent.ContextUsage(m.msgs)
	}
	// Calls the abort left without a result are shown as cancelled.
	for _, e := range m.entries {
		if e.kind == entryTool && e.status == toolPending {
			e.status, e.progress = toolCancelled, ""
			for _, sc := range e.subCalls {
				if sc.status == toolPending {
					sc.status, sc.progress = toolCancelled, ""
				}
			}
			m.forgetSubCalls(e)
			e.touch()
		}
	}
	switch {
	case msg.err != nil && errors.Is(msg.cause, errSaidNo):
		m.entries = append(m.entries, &entry{kind: entryInfo, text: saidNoNote})
	case msg.err != nil && errors.Is(msg.err, context.Canceled) && m.stopping != nil:
		m.stopping.text = interruptedNote
		m.stopping.touch()
	case msg.err != nil && errors.Is(msg.err, context.Canceled):
		m.say(interruptedNote)
	case msg.err != nil:
		m.entries = append(m.entries, &entry{kind: entryError, text: msg.err.Error()})
	case msg.res != nil && msg.res.Subtype == agent.SubtypeMaxTurns:
		m.entries = append(m.entries, &entry{kind: entryError, text: "Stopped at the turn limit."})
	case msg.res != nil && msg.res.HookStop != nil:
		m.entries = append(m.entries, &entry{kind: entryInfo, text: "Stopped: " + msg.res.HookStop.Error() + "."})
	}
	if len(m.queued) > 0 && m.ctx.Err() == nil {
		text := strings.Join(m.queued, "\n\n")
		m.queued = nil
		m.entries = append(m.entries, &entry{kind: entryUser, text: text})
		return m.startTurn(llm.UserText(text))
	}
	return nil
}

// saidNoNote ends a turn stopped by a plain No: the model waits for the person, as in
// Claude Code.
const saidNoNote = "Stopped: you said no. Tell Reins what to do instead."

func (m *transcript) finishStreams() {
	for _, e := range m.stream {
		e.streaming = false
		e.touch()
	}
	m.stream = map[int]*entry{}
}

// event draws one agent event.
func (m *Model) event(ev agent.Event) {
	if ev.ParentToolUseID != "" {
		m.subEvent(ev, m.cfg.now())
		return
	}
	switch ev.Type {
	case agent.EventTextDelta:
		m.streamInto(ev, entryAssistant)
	case agent.EventThinkingDelta:
		m.streamInto(ev, entryThinking)
	case agent.EventAssistant:
		m.retrying = nil // the request was answered: a later one's retries get their own line
		if ev.Response == nil {
			return
		}
		for i, b := range ev.Response.Message.Content {
			switch b.Type {
			case llm.BlockText:
				e := m.stream[i]
				if e == nil {
					if strings.TrimSpace(b.Text) == "" {
						continue
					}
					e = &entry{kind: entryAssistant}
					m.entries = append(m.entries, e)
				}
				e.text, e.streaming = b.Text, false
				e.touch()
			case llm.BlockThinking, llm.BlockRedactedThinking:
				e := m.stream[i]
				if e == nil {
					e = &entry{kind: entryThinking}
					m.entries = append(m.entries, e)
				}
				e.text, e.streaming, e.redacted = b.Thinking, false, b.Type == llm.BlockRedactedThinking
				e.touch()
			case llm.BlockToolUse:
				e := &entry{kind: entryTool, toolID: b.ID, toolName: b.Name, keyInput: keyInput(b.Name, b.Input), status: toolPending, start: m.cfg.now()}
				if isAgentTool(b.Name) {
					e.keyInput = agentKeyInput(b.Input)
				}
				for _, a := range m.asks {
					if r := a.request(); r != nil && r.useID == b.ID {
						// The dialog came first.
						e.progress = waitingForAnswer
					}
				}
				m.cards[b.ID] = e
				m.entries = append(m.entries, e)
			}
		}
		m.stream = map[int]*entry{}
		m.measured(ev.Response.Usage)
	case agent.EventCompact:
		m.compacted(ev.Boundary)
	case agent.EventNotice:
		if ev.ToolUseID == "" {
			m.entries = append(m.entries, &entry{kind: entryInfo, text: ev.Text})
		}
	case agent.EventProgress:
		if e := m.cards[ev.ToolUseID]; e != nil {
			e.progress = progressText(ev.Progress.Message, ev.Progress.Data)
			e.touch()
		}
	case agent.EventToolCall:
		// A call that ran with another input (the person's edit) shows what ran.
		if c := ev.Call; c != nil && c.RanInput != nil {
			if e := m.cards[c.ToolUseID]; e != nil {
				e.keyInput = keyInput(c.ToolName, c.RanInput)
				e.touch()
			}
		}
	case agent.EventToolResults:
		if ev.Message == nil {
			return
		}
		for _, b := range ev.Message.Content {
			if e := m.cards[b.ToolUseID]; e != nil {
				finishCard(e, b, m.cfg.now())
				delete(m.cards, b.ToolUseID)
				m.forgetSubCalls(e)
			}
		}
	}
}

// View draws the transcript window, the dialog or the input, and the status line.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	return v
}

func (m *Model) render() string {
	var bottom []string
	if o := m.active(); o != nil {
		bottom = o.View(m, m.width, max(m.height-3, 6))
	} else {
		bottom = m.input.lines(&m.r.st)
	}
	bottom = append(bottom, m.statusLine())
	if l := m.commandStatus(); l != "" {
		bottom = append(bottom, l)
	}
	h := max(m.height-len(bottom), 0)
	lines := m.scrollback.frame(m.r, m.entries, m.width, h)
	return strings.Join(append(lines, bottom...), "\n")
}

// statusLine shows the mode (always), what is running, and the keys that matter now.
func (m *Model) statusLine() string {
	st := m.r.st
	pc := m.perms()
	mode := pc.Mode()
	var left string
	switch mode {
	case permission.ModeDefault:
		left = st.dim.Render("default mode")
	case permission.ModeAcceptEdits:
		left = "⏵⏵ accept edits on"
	case permission.ModePlan:
		left = "⏸ plan mode on"
	case permission.ModeBypass:
		left = "⏵⏵ bypass permissions on"
	default:
		left = mode.Title() + " on"
	}
	if c, ok := st.modeColor[string(mode)]; ok {
		left = st.title.Foreground(c).Render(left)
	}
	left += st.dim.Render(" (" + keys.Mode.Help().Key + " to cycle)")
	var right string
	switch {
	case m.ctrlC:
		right = st.warn.Render("Press Ctrl+C again to exit")
	case len(m.asks) > 0:
		right = st.warn.Render("waiting for your answer")
	case m.running && len(m.queued) > 0:
		right = st.warn.Render(fmt.Sprintf("● working… %d queued (%s to interrupt)", len(m.queued), keys.Interrupt.Help().Key))
	case m.running:
		right = st.warn.Render("● working… (" + keys.Interrupt.Help().Key + " to interrupt)")
	case m.scrollback.back > 0:
		right = st.dim.Render(fmt.Sprintf("scrolled up %d lines · %s", m.scrollback.back, keys.PageDown.Help().Key))
	case m.contextStatus() != "":
		right = st.warn.Render(m.contextStatus())
	}
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return ansi.Truncate(left+" "+right, m.width, "…")
	}
	return left + strings.Repeat(" ", gap) + right
}

// destLabel names the file a "don't ask again" choice writes, relative to the project.
func (m *Model) destLabel(s permission.Source) string {
	p := m.cfg.SettingsFiles[s]
	if p == "" {
		return s.String()
	}
	if home := m.cfg.Home; home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") && !strings.HasPrefix(p, m.cfg.Cwd+string(filepath.Separator)) {
			return "~/" + rel
		}
	}
	return displayPath(p, m.cfg.Cwd)
}

// updatePermissions applies a change the person made in the UI and records the new state in
// the session. The agent records changes itself only while a turn runs; a mode switched or a
// rule added between turns must be resumed too. A duplicate record is harmless: the last one
// wins on resume.
func (m *Model) updatePermissions(ups ...permission.Update) error {
	p := m.cfg.Agent.Permissions
	if err := p.Update(m.ctx, ups...); err != nil {
		return err
	}
	if rec := m.cfg.Agent.Recorder; rec != nil {
		if err := rec.AppendPermissions(p.State()); err != nil {
			return fmt.Errorf("recording the session: %w", err)
		}
	}
	return nil
}

// streamInto adds a streamed delta to the entry of its block, which the first delta creates.
func (m *transcript) streamInto(ev agent.Event, kind entryKind) {
	e := m.stream[ev.Index]
	if e == nil {
		e = &entry{kind: kind, streaming: true}
		m.stream[ev.Index] = e
		m.entries = append(m.entries, e)
	}
	e.text += ev.Text
	e.touch()
}
