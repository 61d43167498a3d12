package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/mcp/client"
)

const bookingSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Your name","description":"As on the booking"},
	"guests":{"type":"integer","title":"Guests","default":2},
	"budget":{"type":"number","title":"Budget"},
	"newsletter":{"type":"boolean","title":"Newsletter"},
	"room":{"type":"string","title":"Room","enum":["single","double","suite"],"enumNames":["Single","Double","Suite"],"default":"double"}},
	"required":["name","room"]}`

// elicit opens a form in the harness's model, as the Elicitor does, and returns where the
// answer arrives.
func (h *harness) elicit(req client.ElicitRequest) chan client.ElicitResult {
	h.t.Helper()
	fields, err := formFields(req.Schema)
	if err != nil {
		h.t.Fatal(err)
	}
	reply := make(chan client.ElicitResult, 1)
	h.send(elicitMsg{id: 1, req: req, fields: fields, reply: reply})
	return reply
}

func formResult(t *testing.T, reply chan client.ElicitResult) (client.ElicitResult, bool) {
	t.Helper()
	select {
	case r := <-reply:
		return r, true
	default:
		return client.ElicitResult{}, false
	}
}

func TestElicitationForm(t *testing.T) {
	req := client.ElicitRequest{Server: "hotel", Mode: "form", Message: "Book a room for the conference?", Schema: json.RawMessage(bookingSchema)}
	t.Run("screens", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.elicit(req)
		h.golden("elicit-form")
		// Without the required name, Accept shows what is missing and keeps the form open.
		h.press("down", "down", "down", "backspace")
		h.typeText("5")
		h.press("down", "space", "down", "enter")
		h.golden("elicit-form-required")
	})
	tests := []struct {
		name  string
		keys  []string
		typed map[int]string // text typed after the keys at that index
		want  client.ElicitResult
	}{
		{"accept", []string{"enter", "right", "enter", "enter", "enter", "space", "enter", "enter"}, map[int]string{0: "Ada Lovelace", 3: "99.5"},
			client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"name": "Ada Lovelace", "room": "suite", "budget": 99.5, "guests": int64(2), "newsletter": true}}},
		{"decline", []string{"up", "up", "enter"}, nil, client.ElicitResult{Action: client.ElicitDecline}},
		{"cancel with esc", []string{"esc"}, nil, client.ElicitResult{Action: client.ElicitCancel}},
		{"cancel button", []string{"up", "enter"}, nil, client.ElicitResult{Action: client.ElicitCancel}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, 80, 24)
			reply := h.elicit(req)
			for i, k := range tt.keys {
				if s, ok := tt.typed[i]; ok {
					h.typeText(s)
				}
				h.press(k)
			}
			got, ok := formResult(t, reply)
			if !ok {
				t.Fatalf("the form sent no answer:\n%s", h.screen())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if len(h.m.asks) != 0 {
				t.Error("the form is still open")
			}
		})
	}
	t.Run("a bad number is refused", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		reply := h.elicit(req)
		h.typeText("Ada")
		h.press("down", "down")
		h.typeText("lots")
		h.press("down", "down", "down", "enter")
		if _, ok := formResult(t, reply); ok {
			t.Fatal("a form with a bad number was accepted")
		}
		if s := h.screen(); !strings.Contains(s, `Budget: "lots" is not a number`) {
			t.Errorf("no error shown:\n%s", s)
		}
	})
	t.Run("url mode", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		reply := h.elicit(client.ElicitRequest{Server: "auth", Mode: "url", Message: "Sign in to continue.", URL: "https://auth.example.com/device"})
		h.golden("elicit-url")
		h.press("enter")
		got, _ := formResult(t, reply)
		if got.Action != client.ElicitAccept || got.Content != nil {
			t.Errorf("url accept = %+v", got)
		}
	})
	t.Run("ctrl+c twice cancels an open form", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		reply := h.elicit(req)
		h.press("ctrl+c", "ctrl+c")
		if got, _ := formResult(t, reply); got.Action != client.ElicitCancel {
			t.Errorf("quitting answered %+v", got)
		}
	})
}

// The schema's limits are checked before an answer is sent.
func TestFormFieldLimits(t *testing.T) {
	fields, err := formFields(json.RawMessage(`{"type":"object","properties":{
		"age":{"type":"integer","minimum":18,"maximum":120},
		"code":{"type":"string","minLength":2,"maxLength":4},
		"ratio":{"type":"number","maximum":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*formField{}
	for _, f := range fields {
		byName[f.name] = f
	}
	tests := []struct {
		field, text, wantErr string
	}{
		{"age", "17", "age: at least 18"},
		{"age", "121", "age: at most 120"},
		{"age", "30", ""},
		{"code", "x", "code: at least 2 characters"},
		{"code", "abcde", "code: at most 4 characters"},
		{"code", "abc", ""},
		{"ratio", "1.5", "ratio: at most 1"},
		{"ratio", "0.5", ""},
	}
	for _, tt := range tests {
		f := byName[tt.field]
		f.text = []rune(tt.text)
		_, _, err := f.value()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.wantErr {
			t.Errorf("%s=%q: error %q, want %q", tt.field, tt.text, got, tt.wantErr)
		}
	}
}

func TestFormFieldsRejectsNestedTypes(t *testing.T) {
	if _, err := formFields(json.RawMessage(`{"type":"object","properties":{"x":{"type":"object"}}}`)); err == nil {
		t.Error("an object field was accepted")
	}
	if _, err := formFields(json.RawMessage(`{"properties":`)); err == nil {
		t.Error("a broken schema was accepted")
	}
}

// The Elicitor puts a request into the running program and returns the person's answer; a
// request while no program runs, or whose context ends, fails (the client then cancels).
func TestElicitorBridge(t *testing.T) {
	e := NewElicitor()
	req := client.ElicitRequest{Server: "s", Mode: "form", Message: "Name?", Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}
	if _, err := e.Elicit(t.Context(), req); err == nil {
		t.Error("a request with no program showing did not fail")
	}
	msgs := make(chan tea.Msg, 4)
	e.attach(func(m tea.Msg) { msgs <- m })
	done := make(chan client.ElicitResult, 1)
	go func() {
		res, err := e.Elicit(t.Context(), req)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	msg := (<-msgs).(elicitMsg)
	if msg.req.Message != "Name?" || len(msg.fields) != 1 {
		t.Fatalf("request = %+v", msg)
	}
	msg.reply <- client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"name": "x"}}
	if res := <-done; res.Action != client.ElicitAccept {
		t.Errorf("result = %+v", res)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.Elicit(ctx, req); err == nil {
		t.Error("an unanswered request did not fail when its context ended")
	}
	<-msgs // the request
	if _, ok := (<-msgs).(withdrawFormMsg); !ok {
		t.Error("the form was not withdrawn")
	}
}
