package tui

// interruptedNote ends an interrupted turn: the line that said it was stopping says it.
const interruptedNote = "Interrupted. The conversation is saved; type to continue."

// interrupt aborts the running turn and says it is stopping, on one line that the end of the
// turn updates.
func (m *Model) interrupt() {
	m.cancel()
	if m.stopping == nil {
		m.stopping = &entry{kind: entryInfo, text: "Interrupted · the turn is stopping"}
		m.entries = append(m.entries, m.stopping)
	}
}

// notice shows a line of the session's; the model API's retries of a request share one.
func (m *Model) notice(msg noticeMsg) {
	k := entryInfo
	if msg.isErr {
		k = entryError
	}
	if msg.retry && m.retrying != nil {
		m.retrying.text, m.retrying.kind = msg.text, k
		m.retrying.touch()
		return
	}
	e := &entry{kind: k, text: msg.text}
	m.entries = append(m.entries, e)
	if msg.retry {
		m.retrying = e
	}
}
