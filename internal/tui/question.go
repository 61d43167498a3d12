package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// questionPrompt is AskUserQuestion: the model's questions one after another, each answered
// with one of its options, several of them, or the person's own words ("Other").
type questionPrompt struct {
	prompt
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

func newQuestionPrompt(a askMsg) *questionPrompt {
	var in struct {
		Questions []question `json:"questions"`
	}
	// The tool validated its input before it asked; questions that do not decode leave none,
	// and the first key answers with nothing chosen.
	json.Unmarshal(a.raw, &in)
	return &questionPrompt{prompt: prompt{ask: a}, questions: in.Questions, picked: map[int]bool{}, answers: map[string]string{}}
}

// questionKeys are AskUserQuestion's keys: space ticks an option of a question that takes
// several.
var questionKeys = struct {
	choiceKeys
	Toggle key.Binding
}{
	choiceKeys: choiceKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k")),
		Down:   key.NewBinding(key.WithKeys("down", "j", "tab")),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "decline")),
	},
	Toggle: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle")),
}

func (d *questionPrompt) Update(m *Model, msg tea.Msg) (bool, tea.Cmd) {
	return d.update(m, msg, d.key, d.submitText)
}

func (d *questionPrompt) key(msg tea.KeyPressMsg, width int) (bool, answer, tea.Cmd) {
	if d.qi >= len(d.questions) {
		return true, answer{kind: ansQuestions, answers: d.answers}, nil
	}
	q := d.questions[d.qi]
	n := len(q.Options) + 1 // "Other"
	ks := questionKeys
	switch {
	case key.Matches(msg, ks.Up):
		d.sel = (d.sel + n - 1) % n
	case key.Matches(msg, ks.Down):
		d.sel = (d.sel + 1) % n
	case key.Matches(msg, ks.Cancel):
		return true, answer{kind: ansNo}, nil
	case key.Matches(msg, ks.Toggle):
		if q.MultiSelect && d.sel < len(q.Options) {
			d.picked[d.sel] = !d.picked[d.sel]
		}
	case key.Matches(msg, ks.Choose):
		if d.sel == len(q.Options) {
			return false, answer{}, d.startTyping(ansQuestions, width, "")
		}
		d.answers[q.Question] = d.chosen(q)
		return d.nextQuestion()
	}
	return false, answer{}, nil
}

// chosen is the answer to q: the option selected, or the options ticked.
func (d *questionPrompt) chosen(q question) string {
	if !q.MultiSelect {
		return q.Options[d.sel].Label
	}
	idx := make([]int, 0, len(d.picked))
	for i, on := range d.picked {
		if on {
			idx = append(idx, i)
		}
	}
	sort.Ints(idx)
	var labels []string
	for _, i := range idx {
		labels = append(labels, q.Options[i].Label)
	}
	if len(labels) == 0 {
		labels = append(labels, q.Options[d.sel].Label)
	}
	return strings.Join(labels, ", ")
}

// submitText takes the person's own answer to the question.
func (d *questionPrompt) submitText(tea.KeyPressMsg, int) (bool, answer, tea.Cmd) {
	d.answers[d.questions[d.qi].Question] = strings.TrimSpace(d.text.Value())
	d.typing = false
	return d.nextQuestion()
}

func (d *questionPrompt) nextQuestion() (bool, answer, tea.Cmd) {
	d.qi++
	d.sel = 0
	d.picked = map[int]bool{}
	if d.qi >= len(d.questions) {
		return true, answer{kind: ansQuestions, answers: d.answers}, nil
	}
	return false, answer{}, nil
}

func (d *questionPrompt) View(m *Model, width, height int) []string {
	return d.frame(m.r, d.parts(inner(m.r, width), width), width, height)
}

func (d *questionPrompt) parts(r *renderer, width int) parts {
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
	ks, extra := questionKeys.choiceKeys, []key.Binding(nil)
	if q.MultiSelect {
		ks.Choose.SetHelp("enter", "confirm")
		extra = append(extra, questionKeys.Toggle)
	}
	p.foot = append(p.foot, st.dim.Render(ks.hints(extra)))
	return p
}
