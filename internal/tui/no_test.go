package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// driver runs real turns of the harness's model: a scripted provider, the model's commands on
// goroutines and their messages fed back to Update, as the Bubble Tea program does.
type driver struct {
	h      *harness
	script *llmtest.Script
	msgs   chan tea.Msg
	done   []turnDoneMsg
}

func newDriver(h *harness, answers ...llmtest.Answer) *driver {
	d := &driver{h: h, script: llmtest.NewScript(answers...), msgs: make(chan tea.Msg, 256)}
	h.m.fence = newFence()
	a := h.m.cfg.Agent
	a.Provider = d.script
	a.Asker = &asker{send: func(m tea.Msg) { d.msgs <- m }, perms: h.perms, lookup: h.asker.lookup, now: h.m.cfg.Now, stop: h.m.stopper.stop}
	unsubscribe := a.Bus.Subscribe(func(ev agent.Event) { d.msgs <- busMsg{ev: ev} })
	h.t.Cleanup(func() {
		if h.m.cancel != nil {
			h.m.cancel()
		}
		h.m.fence.close()
		go func() {
			for range d.msgs {
			}
		}()
		h.m.turn.Wait()
		unsubscribe()
	})
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		switch msg := cmd().(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				d.run(c)
			}
		default:
			d.msgs <- msg
		}
	}()
}

// key presses one key and runs what it returns.
func (d *driver) key(k string) { d.run(d.h.m.key(keyMsg(k))) }

// until feeds messages to the model until cond holds.
func (d *driver) until(what string, cond func() bool) {
	d.h.t.Helper()
	timeout := time.After(10 * time.Second)
	for !cond() {
		select {
		case msg := <-d.msgs:
			if td, ok := msg.(turnDoneMsg); ok {
				d.done = append(d.done, td)
			}
			_, cmd := d.h.m.Update(msg)
			d.run(cmd)
		case <-timeout:
			d.h.t.Fatalf("waiting for %s: the screen is\n%s", what, d.h.screen())
		}
	}
}

func (d *driver) send(text string) {
	d.h.typeText(text)
	d.key("enter")
}

func (d *driver) idle() bool { return !d.h.m.running }

func useTools(blocks ...llm.Block) llmtest.Answer {
	return llmtest.Respond(llmtest.Response(llm.StopToolUse, blocks...))
}

func say(text string) llmtest.Answer {
	return llmtest.Respond(llmtest.Response(llm.StopEndTurn, llm.Text(text)))
}

// Every way to answer a dialog with a plain No — its number, the arrows and enter, esc — and
// in every dialog shape (the No is option 2, 3 or 6), ends the turn exactly once: the call's
// result is the rejection, calls after it are cancelled, the model is not asked again, and the
// next message's reply is shown once.
func TestEveryNoEndsTheTurnOnce(t *testing.T) {
	calls := []struct {
		name  string
		tool  string
		input string
		noAt  int // the No's number in the dialog
	}{
		{"bash with rules", "Bash", `{"command":"touch made.txt"}`, 6},
		{"write with a mode switch", "Write", `{"file_path":"PROJECT/new.txt","content":"x"}`, 3},
		{"protected path", "Write", `{"file_path":"PROJECT/.git/config","content":"x"}`, 2},
	}
	ways := map[string]func(d *driver, noAt int){
		"number": func(d *driver, noAt int) { d.key(fmt.Sprint(noAt)) },
		"esc":    func(d *driver, noAt int) { d.key("esc") },
		"arrows and enter": func(d *driver, noAt int) {
			for range noAt - 1 {
				d.key("down")
			}
			d.key("enter")
		},
	}
	for _, c := range calls {
		for way, answerNo := range ways {
			t.Run(c.name+"/"+way, func(t *testing.T) {
				h := newHarness(t, 100, 40)
				input := strings.ReplaceAll(c.input, "PROJECT", h.dir)
				d := newDriver(h,
					useTools(llm.ToolUse("t1", c.tool, []byte(input)), llm.ToolUse("t2", "Bash", []byte(`{"command":"touch second.txt"}`))),
					say("Next reply."))
				d.send("go")
				d.until("the dialog", func() bool { return len(h.m.asks) > 0 })
				if got := h.m.asks[0].(*permissionPrompt).opts[c.noAt-1]; got.kind != ansNo {
					t.Fatalf("option %d is %q, not No", c.noAt, got.label)
				}
				answerNo(d, c.noAt)
				d.until("the end of the turn", d.idle)

				if len(d.done) != 1 || !errors.Is(d.done[0].cause, errSaidNo) {
					t.Fatalf("turns ended: %+v, want one stopped by the No", d.done)
				}
				if n := len(d.script.Requests()); n != 1 {
					t.Errorf("the model was asked %d times, want once", n)
				}
				last := h.m.msgs[len(h.m.msgs)-1]
				if len(last.Content) != 2 || last.Content[0].Content[0].Text != agent.RejectMessage || last.Content[1].Content[0].Text != agent.CancelMessage {
					t.Errorf("the results are %+v, want the rejection and a cancelled second call", last.Content)
				}
				if n := strings.Count(h.screen(), "Stopped: you said no"); n != 1 {
					t.Errorf("the stop is told %d times:\n%s", n, h.screen())
				}

				d.send("what now")
				d.until("the reply", func() bool { return d.idle() && len(d.done) == 2 })
				if n := strings.Count(h.screen(), "Next reply."); n != 1 {
					t.Errorf("the reply is shown %d times:\n%s", n, h.screen())
				}
				if err := d.done[1].err; err != nil {
					t.Errorf("the next turn failed: %v", err)
				}
			})
		}
	}
}
