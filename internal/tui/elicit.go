package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/reinsdev/reins/mcp/client"
)

// Elicitor is the interactive mode's [client.Elicitor]: an MCP server's request for input
// becomes a form dialog. It is created before the servers start (they take it as an option)
// and shows its dialogs while [Run] runs; a request outside that time, or one whose context
// ends while it is open, fails, and the client answers the server with cancel.
type Elicitor struct {
	mu   sync.Mutex
	send func(tea.Msg)
	next atomic.Int64
}

var _ client.Elicitor = (*Elicitor)(nil)

// NewElicitor returns an Elicitor that waits for [Run] to show its dialogs.
func NewElicitor() *Elicitor { return &Elicitor{} }

func (e *Elicitor) attach(send func(tea.Msg)) {
	e.mu.Lock()
	e.send = send
	e.mu.Unlock()
}

var errNoScreen = errors.New("the interactive mode is not showing, so no one can answer")

// Elicit shows the request and waits for the person's answer.
func (e *Elicitor) Elicit(ctx context.Context, req client.ElicitRequest) (client.ElicitResult, error) {
	e.mu.Lock()
	send := e.send
	e.mu.Unlock()
	if send == nil {
		return client.ElicitResult{}, errNoScreen
	}
	fields, err := formFields(req.Schema)
	if err != nil {
		return client.ElicitResult{}, err
	}
	reply := make(chan client.ElicitResult, 1)
	id := e.next.Add(1)
	send(elicitMsg{id: id, req: req, fields: fields, reply: reply})
	select {
	case res := <-reply:
		return res, nil
	case <-ctx.Done():
		send(withdrawFormMsg{id: id})
		return client.ElicitResult{}, ctx.Err()
	}
}

// elicitMsg brings a request into the program; reply receives the answer exactly once.
type elicitMsg struct {
	id     int64
	req    client.ElicitRequest
	fields []*formField
	reply  chan<- client.ElicitResult
}

type withdrawFormMsg struct{ id int64 }

type fieldKind int

const (
	fieldString fieldKind = iota
	fieldNumber
	fieldInteger
	fieldBool
	fieldEnum
)

// formField is one property of the requested schema and what the person entered.
type formField struct {
	name, title, desc string
	kind              fieldKind
	required          bool
	enum, enumNames   []string
	// Limits from the schema: minimum / maximum for numbers, minLength / maxLength for text.
	min, max       *float64
	minLen, maxLen *int
	text           []rune // string and number fields
	on             bool   // boolean fields
	choice         int    // enum fields
}

// formFields reads the fields of an elicitation's schema (a flat object of primitive
// properties, as MCP allows). Properties are shown required first, then by name.
func formFields(schema json.RawMessage) ([]*formField, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var s struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Enum        []any    `json:"enum"`
			EnumNames   []string `json:"enumNames"`
			Default     any      `json:"default"`
			Minimum     *float64 `json:"minimum"`
			Maximum     *float64 `json:"maximum"`
			MinLength   *int     `json:"minLength"`
			MaxLength   *int     `json:"maxLength"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("reading the requested schema: %w", err)
	}
	var out []*formField
	for name, p := range s.Properties {
		f := &formField{name: name, title: p.Title, desc: p.Description, required: slices.Contains(s.Required, name),
			min: p.Minimum, max: p.Maximum, minLen: p.MinLength, maxLen: p.MaxLength}
		switch {
		case len(p.Enum) > 0:
			f.kind = fieldEnum
			for _, v := range p.Enum {
				f.enum = append(f.enum, fmt.Sprint(v))
			}
			if len(p.EnumNames) == len(p.Enum) {
				f.enumNames = p.EnumNames
			}
			for i, v := range f.enum {
				if p.Default != nil && fmt.Sprint(p.Default) == v {
					f.choice = i
				}
			}
		case p.Type == "boolean":
			f.kind = fieldBool
			f.on, _ = p.Default.(bool)
		case p.Type == "number":
			f.kind = fieldNumber
		case p.Type == "integer":
			f.kind = fieldInteger
		case p.Type == "string" || p.Type == "":
			f.kind = fieldString
		default:
			return nil, fmt.Errorf("the requested field %q has type %q; a form takes strings, numbers, booleans and enums", name, p.Type)
		}
		if (f.kind == fieldString || f.kind == fieldNumber || f.kind == fieldInteger) && p.Default != nil {
			f.text = []rune(fmt.Sprint(p.Default))
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].required != out[j].required {
			return out[i].required
		}
		return out[i].name < out[j].name
	})
	return out, nil
}

// value is what the field sends; ok is false when it is empty.
func (f *formField) value() (v any, ok bool, err error) {
	switch f.kind {
	case fieldBool:
		return f.on, true, nil
	case fieldEnum:
		return f.enum[f.choice], true, nil
	}
	s := strings.TrimSpace(string(f.text))
	if s == "" {
		return nil, false, nil
	}
	switch f.kind {
	case fieldNumber:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %q is not a number", f.label(), s)
		}
		return n, true, f.inRange(n)
	case fieldInteger:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %q is not a whole number", f.label(), s)
		}
		return n, true, f.inRange(float64(n))
	}
	n := len([]rune(s))
	if f.minLen != nil && n < *f.minLen {
		return nil, false, fmt.Errorf("%s: at least %d characters", f.label(), *f.minLen)
	}
	if f.maxLen != nil && n > *f.maxLen {
		return nil, false, fmt.Errorf("%s: at most %d characters", f.label(), *f.maxLen)
	}
	return s, true, nil
}

// inRange checks a number against the schema's minimum and maximum.
func (f *formField) inRange(n float64) error {
	if f.min != nil && n < *f.min {
		return fmt.Errorf("%s: at least %v", f.label(), *f.min)
	}
	if f.max != nil && n > *f.max {
		return fmt.Errorf("%s: at most %v", f.label(), *f.max)
	}
	return nil
}

func (f *formField) label() string {
	if f.title != "" {
		return f.title
	}
	return f.name
}

// form is an open elicitation. The focus moves over the fields, then the three answers.
type form struct {
	msg   elicitMsg
	focus int
	err   string
}

var formButtons = []string{"Accept", "Decline", "Cancel"}

func newForm(msg elicitMsg) *form { return &form{msg: msg} }

func (f *form) request() *askMsg { return nil }
func (f *form) refuse()          { f.msg.reply <- client.ElicitResult{Action: client.ElicitCancel} }

func (f *form) withdrawnBy(msg tea.Msg) bool {
	w, ok := msg.(withdrawFormMsg)
	return ok && w.id == f.msg.id
}

// Update takes keys and pasted text; the result is sent when the form is answered.
func (f *form) Update(_ *Model, msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		f.paste(msg.Content)
	case tea.KeyPressMsg:
		if done, res := f.key(msg); done {
			f.msg.reply <- res
			return true, nil
		}
	}
	return false, nil
}

func (f *form) View(m *Model, width, _ int) []string { return f.view(m.r, width) }

// key handles a key press; it returns the result when the form is answered.
func (f *form) key(msg tea.KeyPressMsg) (bool, client.ElicitResult) {
	fields := f.msg.fields
	n := len(fields) + len(formButtons)
	var cur *formField
	if f.focus < len(fields) {
		cur = fields[f.focus]
	}
	switch k := msg.String(); k {
	case "esc":
		return true, client.ElicitResult{Action: client.ElicitCancel}
	case "up", "shift+tab":
		f.focus = (f.focus + n - 1) % n
	case "down", "tab":
		f.focus = (f.focus + 1) % n
	case "enter":
		if cur != nil {
			f.focus++
			return false, client.ElicitResult{}
		}
		return f.submit(f.focus - len(fields))
	case "left", "right", "space":
		switch {
		case cur != nil && cur.kind == fieldBool:
			cur.on = !cur.on
		case cur != nil && cur.kind == fieldEnum:
			step := 1
			if k == "left" {
				step = len(cur.enum) - 1
			}
			cur.choice = (cur.choice + step) % len(cur.enum)
		case cur != nil && k == "space":
			cur.text = append(cur.text, ' ')
		case cur == nil && k != "space":
			b := f.focus - len(fields)
			if k == "left" {
				b = (b + len(formButtons) - 1) % len(formButtons)
			} else {
				b = (b + 1) % len(formButtons)
			}
			f.focus = len(fields) + b
		}
	case "backspace":
		if cur != nil && len(cur.text) > 0 {
			cur.text = cur.text[:len(cur.text)-1]
		}
	default:
		if cur != nil && msg.Text != "" && (cur.kind == fieldString || cur.kind == fieldNumber || cur.kind == fieldInteger) {
			cur.text = append(cur.text, []rune(msg.Text)...)
		}
	}
	return false, client.ElicitResult{}
}

func (f *form) paste(s string) {
	if f.focus < len(f.msg.fields) {
		if cur := f.msg.fields[f.focus]; cur.kind != fieldBool && cur.kind != fieldEnum {
			cur.text = append(cur.text, []rune(strings.ReplaceAll(s, "\n", " "))...)
		}
	}
}

// submit answers with button b; accept checks the fields first.
func (f *form) submit(b int) (bool, client.ElicitResult) {
	switch b {
	case 1:
		return true, client.ElicitResult{Action: client.ElicitDecline}
	case 2:
		return true, client.ElicitResult{Action: client.ElicitCancel}
	}
	content := map[string]any{}
	for _, fl := range f.msg.fields {
		v, ok, err := fl.value()
		if err != nil {
			f.err = err.Error()
			return false, client.ElicitResult{}
		}
		if !ok {
			if fl.required {
				f.err = fl.label() + " is required"
				return false, client.ElicitResult{}
			}
			continue
		}
		content[fl.name] = v
	}
	if f.msg.req.Mode == "url" {
		content = nil
	}
	return true, client.ElicitResult{Action: client.ElicitAccept, Content: content}
}

// view renders the form in a border of width columns.
func (f *form) view(outer *renderer, width int) []string {
	r := &renderer{st: outer.st, width: max(width-4, 10)}
	st := r.st
	req := f.msg.req
	lines := []string{st.accent.Render("MCP server " + req.Server + " asks for input")}
	lines = append(lines, r.wrap(req.Message, 0)...)
	if req.Mode == "url" {
		lines = append(lines, "", "Open this address to continue:", "  "+st.keyInput.Render(req.URL))
	}
	if len(f.msg.fields) > 0 {
		lines = append(lines, "")
	}
	for i, fl := range f.msg.fields {
		name := fl.label()
		if fl.required {
			name += " *"
		}
		var val string
		switch fl.kind {
		case fieldBool:
			val = "[ ] no"
			if fl.on {
				val = "[x] yes"
			}
		case fieldEnum:
			var opts []string
			for j, v := range fl.enum {
				if fl.enumNames != nil {
					v = fl.enumNames[j]
				}
				if j == fl.choice {
					v = "(•) " + v
				} else {
					v = "( ) " + v
				}
				opts = append(opts, v)
			}
			val = strings.Join(opts, "  ")
		default:
			val = string(fl.text)
			if i == f.focus {
				val += "▏"
			}
			if fl.kind != fieldString {
				val += st.dim.Render("  (" + map[fieldKind]string{fieldNumber: "number", fieldInteger: "whole number"}[fl.kind] + ")")
			}
		}
		line := fmt.Sprintf("  %s: %s", name, val)
		if i == f.focus {
			line = st.selected.Render("❯ "+name+":") + " " + val
		}
		lines = append(lines, line)
		if fl.desc != "" {
			lines = append(lines, "    "+st.dim.Render(fl.desc))
		}
	}
	var buttons []string
	for i, b := range formButtons {
		if len(f.msg.fields)+i == f.focus {
			buttons = append(buttons, st.selected.Render("[ "+b+" ]"))
		} else {
			buttons = append(buttons, "  "+b+"  ")
		}
	}
	lines = append(lines, "", strings.Join(buttons, " "))
	if f.err != "" {
		lines = append(lines, st.err.Render(f.err))
	}
	hints := "↑↓/tab move · ←→/space change a choice · enter next / answer · esc cancel"
	lines = append(lines, st.dim.Render(hints))
	inner := max(width-4, 10)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return strings.Split(st.border.Width(width).Render(strings.Join(lines, "\n")), "\n")
}
