package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/reinsdev/reins/permission"
)

// option is one choice of a prompt.
type option struct {
	label string
	kind  answerKind
}

// prompt is what the three prompts over a tool call (permissionPrompt, planApproval,
// questionPrompt) share: the ask they answer, the option selected, the scrolling of a long
// body and the free-text field. A prompt replies exactly once, through ask.reply.
type prompt struct {
	ask askMsg
	sel int
	// offset scrolls a body too long for the screen (pgup/pgdown).
	offset int

	// text is the free-text field (feedback, edit, "Other" answer); typing is what it is for.
	typing  bool
	purpose answerKind
	text    textarea.Model
}

// newPrompt builds the prompt for an ask; prePlan is the mode plan mode was entered from.
func newPrompt(a askMsg, prePlan permission.Mode) ask {
	switch a.req.Tool {
	case "ExitPlanMode":
		return &planApproval{prompt: prompt{ask: a}, prePlanMode: prePlan}
	case "AskUserQuestion":
		return newQuestionPrompt(a)
	}
	return newPermissionPrompt(a)
}

func (p *prompt) request() *askMsg { return &p.ask }
func (p *prompt) refuse()          { p.ask.reply <- answer{kind: ansNo} }
func (p *prompt) editing() bool    { return p.typing }

func (p *prompt) withdrawnBy(msg tea.Msg) bool {
	w, ok := msg.(withdrawMsg)
	return ok && w.id == p.ask.id
}

// keyFunc is a prompt's own handling of a key press: done with the answer, or not yet.
type keyFunc func(msg tea.KeyPressMsg, width int) (done bool, ans answer, cmd tea.Cmd)

// update is the Update every prompt shares: pasted text and the keys of the free-text field go
// to the field; other keys go to the prompt's own key, and submit takes the field's text.
// The answer is sent when the prompt is done.
func (p *prompt) update(m *Model, msg tea.Msg, key, submit keyFunc) (bool, tea.Cmd) {
	var (
		done bool
		ans  answer
		cmd  tea.Cmd
	)
	switch msg := msg.(type) {
	case tea.PasteMsg:
		if p.typing {
			p.text.InsertString(msg.Content)
		}
		return false, nil
	case tea.KeyPressMsg:
		switch {
		case !p.typing:
			done, ans, cmd = key(msg, m.width)
		case msg.String() == "esc":
			p.typing = false
			return false, nil
		case msg.String() == "enter":
			done, ans, cmd = submit(msg, m.width)
		default:
			p.text, cmd = p.text.Update(msg)
			return false, cmd
		}
	default:
		if p.typing {
			p.text, cmd = p.text.Update(msg)
		}
		return false, cmd
	}
	if done {
		p.ask.reply <- ans
	}
	return done, cmd
}

// listKey moves through opts and picks one (ck.Choose, or its number); choose answers the
// pick. It reports whether the key was one of these.
func (p *prompt) listKey(msg tea.KeyPressMsg, ck choiceKeys, opts []option, choose func(option) (bool, answer, tea.Cmd)) (handled, done bool, ans answer, cmd tea.Cmd) {
	switch {
	case key.Matches(msg, ck.Up):
		p.sel = (p.sel + len(opts) - 1) % len(opts)
	case key.Matches(msg, ck.Down):
		p.sel = (p.sel + 1) % len(opts)
	case key.Matches(msg, promptKeys.PageDown):
		p.offset += 5
	case key.Matches(msg, promptKeys.PageUp):
		p.offset = max(p.offset-5, 0)
	case key.Matches(msg, ck.Choose):
		done, ans, cmd = choose(opts[p.sel])
	case key.Matches(msg, promptKeys.Number):
		if i := int(msg.String()[0] - '1'); i < len(opts) {
			p.sel = i
			done, ans, cmd = choose(opts[i])
		}
	default:
		return false, false, ans, nil
	}
	return true, done, ans, cmd
}

// startTyping opens the free-text field for purpose.
func (p *prompt) startTyping(purpose answerKind, width int, value string) tea.Cmd {
	p.typing, p.purpose = true, purpose
	p.text = newTextArea(width, value)
	return p.text.Focus()
}

// submitFeedback answers with the field's text as the person's words to the model.
func (p *prompt) submitFeedback(tea.KeyPressMsg, int) (bool, answer, tea.Cmd) {
	return true, answer{kind: p.purpose, feedback: p.text.Value()}, nil
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

// parts are the sections of a prompt: the body gives way when the screen is small.
type parts struct{ head, body, opts, foot []string }

// typingPrompts are the titles over the free-text field, by what it is for.
var typingPrompts = map[answerKind]string{
	ansEdited:     "Edit, then enter to run it (the engine checks it again) · esc back",
	ansNoFeedback: "Tell Reins what to do instead · enter send · esc back",
	ansPlanKeep:   "What should change in the plan? · enter send · esc back",
	ansQuestions:  "Your answer · enter send · esc back",
}

// frame draws a prompt's parts, and the free-text field while typing, in a border of width
// columns and at most height lines.
func (p *prompt) frame(r *renderer, pt parts, width, height int) []string {
	st := r.st
	if p.typing {
		pt.opts = append(pt.opts, "", st.title.Render(typingPrompts[p.purpose]))
		pt.opts = append(pt.opts, strings.Split(p.text.View(), "\n")...)
		pt.foot = nil
	}
	// The options and hints always show; the body gives way on a small screen.
	room := max(height-2-len(pt.head)-len(pt.opts)-len(pt.foot), 0)
	body := pt.body
	if len(body) > room && p.offset > 0 {
		p.offset = min(p.offset, len(body)-room)
		body = body[p.offset:]
	}
	if len(body) > room {
		cut := len(body) - room
		body = body[:room]
		if room > 0 {
			body[room-1] = st.dim.Render(fmt.Sprintf("  … %d more lines (pgdown)", cut+1))
		}
	}
	lines := append(append(append(pt.head, body...), pt.opts...), pt.foot...)
	inner := max(width-4, 10)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	box := st.border.Width(width).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}

// inner is the renderer of a prompt's text, which wraps inside its border.
func inner(outer *renderer, width int) *renderer {
	return &renderer{st: outer.st, width: max(width-4, 10), now: outer.now}
}

func (p *prompt) optLine(r *renderer, i int, label string) string {
	if i == p.sel {
		return r.st.selected.Render(fmt.Sprintf("❯ %d. %s", i+1, label))
	}
	return fmt.Sprintf("  %d. %s", i+1, label)
}
