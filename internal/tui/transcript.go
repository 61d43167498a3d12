package tui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/reinsdev/reins/internal/tui/markdown"
	"github.com/reinsdev/reins/llm"
)

type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entryError
	entryInfo
	// entryThinking is the model's reasoning: one collapsed line until ctrl+o expands it.
	// redacted marks reasoning the API encrypted, which has no text to show.
	entryThinking
)

type toolStatus int

// waitingForAnswer is the state of a call whose permission dialog is open: it is not running.
const waitingForAnswer = "waiting for your answer"

const (
	toolPending toolStatus = iota
	toolDone
	toolFailed
	toolDenied
	toolCancelled
)

// entry is one item of the transcript. Its rendered lines are cached for one width and
// dropped whenever the entry changes.
type entry struct {
	kind entryKind
	text string
	// streaming marks assistant text still arriving: it is wrapped as plain text, and rendered
	// as Markdown once complete.
	streaming bool
	redacted  bool

	// Tool cards.
	toolID, toolName, keyInput string
	status                     toolStatus
	start, end                 time.Time
	output, progress           string
	// subCalls are the tool calls of the sub-agent an Agent call runs, in order.
	subCalls []*subCall

	cacheW   int
	cacheExp bool
	cache    []string
}

func (e *entry) touch() { e.cache = nil }

// keyInput picks the one input field that says what a call does.
func keyInput(name string, raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "file_path", "notebook_path", "pattern", "url", "query", "path", "description", "prompt"} {
		if s, ok := m[k].(string); ok && s != "" {
			return oneLine(s)
		}
	}
	if strings.HasPrefix(name, "mcp__") {
		b, _ := json.Marshal(m)
		return oneLine(string(b))
	}
	return ""
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// resultText flattens a tool_result's content to text.
func resultText(b llm.Block) string {
	var parts []string
	for _, c := range b.Content {
		switch c.Type {
		case llm.BlockText:
			parts = append(parts, c.Text)
		case llm.BlockImage:
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n")
}

// progressText is the live line of a running call: the tool's message and, for commands that
// report output (Bash), the last lines of it.
func progressText(msg string, data any) string {
	out := msg
	if data != nil {
		var p struct {
			Output string `json:"output"`
		}
		if b, err := json.Marshal(data); err == nil && json.Unmarshal(b, &p) == nil && p.Output != "" {
			lines := strings.Split(strings.TrimRight(p.Output, "\n"), "\n")
			if len(lines) > 3 {
				lines = lines[len(lines)-3:]
			}
			out = strings.TrimSpace(out + "\n" + strings.Join(lines, "\n"))
		}
	}
	return out
}

// renderer turns entries into lines for one width.
type renderer struct {
	st       styles
	width    int
	expanded bool
	md       *markdown.Renderer
	now      func() time.Time
}

func (r *renderer) markdown(text string) string {
	if r.md == nil {
		theme := markdown.Light
		if r.st.dark {
			theme = markdown.Dark
		}
		// The width includes the renderer's two-column indent, as wrap's does for the text
		// streamed before it: a finished message keeps the width it streamed at.
		r.md = markdown.New(r.width, theme)
	}
	return r.md.Render(text)
}

func (r *renderer) wrap(s string, indent int) []string {
	w := max(r.width-indent, 10)
	pad := strings.Repeat(" ", indent)
	var out []string
	for _, l := range strings.Split(ansi.Wrap(s, w, " "), "\n") {
		out = append(out, pad+l)
	}
	return out
}

// lines renders e, from its cache when the width and expansion have not changed.
func (r *renderer) lines(e *entry) []string {
	if e.cache != nil && e.cacheW == r.width && e.cacheExp == r.expanded && !(e.kind == entryTool && e.status == toolPending) {
		return e.cache
	}
	var out []string
	switch e.kind {
	case entryUser:
		ls := r.wrap(e.text, 2)
		ls[0] = r.st.user.Render("> ") + ls[0][2:]
		out = ls
	case entryAssistant:
		if e.streaming {
			// Plain text until the reply is whole; the Markdown renderer filters the same way.
			out = r.wrap(printable(e.text), 2)
		} else {
			out = strings.Split(r.markdown(e.text), "\n")
		}
		if len(out) > 0 {
			first := ansi.Strip(out[0])
			if strings.HasPrefix(first, "  ") {
				out[0] = r.st.dim.Render("●") + " " + ansi.TruncateLeft(out[0], 2, "")
			} else {
				out = append([]string{r.st.dim.Render("●")}, out...)
			}
		}
	case entryTool:
		out = r.toolCard(e)
	case entryError:
		out = r.wrap(r.st.err.Render("✗ "+e.text), 0)
	case entryInfo:
		out = r.wrap(r.st.dim.Render(e.text), 2)
	case entryThinking:
		out = r.thinking(e)
	}
	out = append(out, "")
	e.cache, e.cacheW, e.cacheExp = out, r.width, r.expanded
	return out
}

// thinking renders reasoning as one line, "✻ Thinking…" with its length, or expanded
// (ctrl+o) with its text below, dimmed, as Claude Code shows it.
func (r *renderer) thinking(e *entry) []string {
	head := r.st.dim.Render("✻ Thinking…")
	switch n := utf8.RuneCountInString(e.text); {
	case e.redacted:
		return []string{head + r.st.dim.Render(" (redacted by the API)")}
	case !r.expanded && e.streaming:
		return []string{head + r.st.dim.Render(fmt.Sprintf(" (%s chars)", thousands(n)))}
	case !r.expanded:
		return []string{head + r.st.dim.Render(fmt.Sprintf(" (%s chars · ctrl+o to expand)", thousands(n)))}
	}
	out := []string{head}
	for _, l := range r.wrap(printable(strings.TrimSpace(e.text)), 2) {
		out = append(out, r.st.dim.Render(l))
	}
	return out
}

// printable is the model's text with every control character but tab and newline shown
// as U+FFFD, as the Markdown renderer does: reasoning is the model's, and an escape
// sequence in it must not reach the terminal.
func printable(s string) string {
	return strings.Map(func(c rune) rune {
		if (c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7f && c < 0xa0) {
			return '\uFFFD'
		}
		return c
	}, s)
}

// thousands writes n with a comma between each group of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (r *renderer) toolCard(e *entry) []string {
	var mark, status string
	switch e.status {
	case toolPending:
		mark = r.st.warn.Render("◌")
		if e.progress == waitingForAnswer {
			status = r.st.warn.Render(waitingForAnswer)
		} else if !e.start.IsZero() {
			status = r.st.dim.Render(fmt.Sprintf("running %s", fmtDur(r.now().Sub(e.start))))
		}
	case toolDone:
		mark = r.st.ok.Render("●")
		status = r.st.dim.Render(fmtDur(e.end.Sub(e.start)))
		if n := subSummary(e); n != "" {
			status = r.st.dim.Render(n + " · " + fmtDur(e.end.Sub(e.start)))
		}
	case toolFailed:
		mark = r.st.err.Render("●")
		status = r.st.err.Render("error") + " " + r.st.dim.Render(fmtDur(e.end.Sub(e.start)))
	case toolDenied:
		mark = r.st.err.Render("●")
		status = r.st.err.Render("denied")
	case toolCancelled:
		mark = r.st.dim.Render("●")
		status = r.st.dim.Render("cancelled")
	}
	head := mark + " " + r.st.toolName.Render(e.toolName)
	if e.keyInput != "" {
		room := max(r.width-ansi.StringWidth(e.toolName)-ansi.StringWidth(ansi.Strip(status))-8, 8)
		head += "(" + r.st.keyInput.Render(ansi.Truncate(e.keyInput, room, "…")) + ")"
	}
	if status != "" {
		head += " " + status
	}
	out := []string{head}
	out = append(out, r.subLines(e)...)
	body := e.output
	if e.status == toolPending {
		body = e.progress
		if body == waitingForAnswer {
			// The status says it; the dialog below shows the call.
			body = ""
		}
		// The Agent tool reports each of its sub-agent's calls as progress; the nested lines
		// already show them.
		if len(e.subCalls) > 0 && body != "waiting for your answer" {
			body = ""
		}
	}
	if body == "" {
		return out
	}
	style := r.st.dim
	if e.status == toolFailed || e.status == toolDenied {
		style = r.st.err
	}
	ls := strings.Split(strings.TrimRight(body, "\n"), "\n")
	limit := 3
	if r.expanded {
		limit = 200
	}
	if e.status == toolDenied {
		// Why a call was refused is a sentence to read whole: wrapped, not cut.
		ls = strings.Split(ansi.Wrap(strings.Join(ls, "\n"), max(r.width-4, 8), " "), "\n")
		limit = max(limit, 8)
	}
	hidden := 0
	if len(ls) > limit {
		hidden = len(ls) - limit
		ls = ls[:limit]
	}
	for i, l := range ls {
		prefix := "  ⎿ "
		if i > 0 {
			prefix = "    "
		}
		out = append(out, prefix+style.Render(ansi.Truncate(l, max(r.width-4, 8), "…")))
	}
	if hidden > 0 {
		out = append(out, r.st.dim.Render(fmt.Sprintf("    … %d more lines (ctrl+o to expand)", hidden)))
	}
	return out
}

func fmtDur(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// window renders the last height lines of the transcript that end scroll lines above its
// bottom, padded at the top so that a short transcript sits on the input.
func (r *renderer) window(entries []*entry, height, scroll int) []string {
	all := r.tail(entries, height+scroll)
	end := max(len(all)-scroll, 0)
	return padTop(all[max(end-height, 0):end], height)
}

// tail renders the last n lines of the transcript, or all of it when it is shorter. It
// renders entries from the last one backwards and stops when it has n lines, so a frame costs
// the same for ten messages and ten thousand.
func (r *renderer) tail(entries []*entry, n int) []string {
	var chunks [][]string
	got := 0
	for i := len(entries) - 1; i >= 0 && got < n; i-- {
		ls := r.lines(entries[i])
		chunks = append(chunks, ls)
		got += len(ls)
	}
	all := make([]string, 0, got)
	for i := len(chunks) - 1; i >= 0; i-- {
		all = append(all, chunks[i]...)
	}
	return all[max(len(all)-n, 0):]
}

// padTop puts blank lines above lines up to height.
func padTop(lines []string, height int) []string {
	if len(lines) >= height {
		return lines
	}
	return append(make([]string, height-len(lines), height), lines...)
}

// transcript is what the conversation shows: its entries, in order, and the indexes into
// them that the agent's events update — the blocks being streamed by index, the tool cards
// still running by tool_use id, and sub-agents' calls still running with the top-level Agent
// card each is nested under.
type transcript struct {
	entries []*entry
	stream  map[int]*entry
	cards   map[string]*entry
	subs    map[string]*subCall
	subTop  map[string]*entry
}

func newTranscript() transcript {
	return transcript{stream: map[int]*entry{}, cards: map[string]*entry{}, subs: map[string]*subCall{}, subTop: map[string]*entry{}}
}

// entriesFromHistory rebuilds the transcript of a resumed session. subAgent, when set,
// returns the saved conversation of a sub-agent by its agent id, so that an Agent card shows
// the calls its sub-agent made.
func entriesFromHistory(msgs []llm.Message, subAgent func(agentID string) []llm.Message) []*entry {
	var out []*entry
	cards := map[string]*entry{}
	for _, m := range msgs {
		for _, b := range m.Content {
			switch {
			case b.Type == llm.BlockText && m.Role == llm.RoleUser:
				out = append(out, &entry{kind: entryUser, text: b.Text})
			case b.Type == llm.BlockText && strings.TrimSpace(b.Text) != "":
				out = append(out, &entry{kind: entryAssistant, text: b.Text})
			case b.IsThinking():
				out = append(out, &entry{kind: entryThinking, text: b.Thinking, redacted: b.Type == llm.BlockRedactedThinking})
			case b.Type == llm.BlockToolUse:
				e := &entry{kind: entryTool, toolID: b.ID, toolName: b.Name, keyInput: keyInput(b.Name, b.Input), status: toolPending}
				if isAgentTool(b.Name) {
					e.keyInput = agentKeyInput(b.Input)
				}
				cards[b.ID] = e
				out = append(out, e)
			case b.Type == llm.BlockToolResult:
				if e := cards[b.ToolUseID]; e != nil {
					finishCard(e, b, time.Time{})
					if isAgentTool(e.toolName) && subAgent != nil {
						if id := agentIDOf(resultText(b)); id != "" {
							e.subCalls = subCallsFromHistory(subAgent(id))
						}
					}
				}
			}
		}
	}
	return out
}

// cardText is a result as a person reads it: the lines only the model needs (the Agent
// tool's agentId and usage) are dropped, and the tags that mark errors for the model are
// taken off; the card's colour says it is an error.
func cardText(s string) string {
	if i := strings.Index(s, "\n\nagentId: "); i >= 0 {
		s = s[:i]
	} else if strings.HasPrefix(s, "agentId: ") {
		s = ""
	}
	for _, tag := range []string{"<tool_use_error>", "</tool_use_error>", "<error>", "</error>"} {
		s = strings.ReplaceAll(s, tag, "")
	}
	return s
}

// finishCard records a call's result on its card.
func finishCard(e *entry, b llm.Block, now time.Time) {
	e.output = cardText(resultText(b))
	e.progress = ""
	e.end = now
	if e.start.IsZero() {
		e.start = now
	}
	switch {
	case !b.IsError:
		e.status = toolDone
	case strings.Contains(e.output, "denied") || strings.Contains(e.output, "rejected"):
		e.status = toolDenied
	case strings.HasPrefix(e.output, "The user doesn't want to") || e.output == "Interrupted by user":
		e.status = toolCancelled
	default:
		e.status = toolFailed
	}
	e.touch()
}
