package llmtest

import (
	"bytes"
	"encoding/json"
)

// A side script answers the requests of a second conversation that runs beside the main one,
// such as a sub-agent's, which may reach the server in any order relative to the main
// script's requests. A request whose body contains the side script's match string (say, a
// phrase of that conversation's system prompt) takes its next turn from the side script.
type sideScript struct {
	match []byte
	turns []Turn
	next  int
	// base numbers the side script's turns apart from the main script's, so tool_use ids
	// never collide.
	base int
}

// Side adds a side script: requests whose body contains match are answered with turns, in
// order, instead of with the main script's.
func (s *Server) Side(match string, turns ...Turn) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sides = append(s.sides, &sideScript{match: []byte(match), turns: turns, base: 1000 * (len(s.sides) + 1)})
	return s
}

// takeSide returns the next turn of the side script body belongs to, under s.mu.
func (s *Server) takeSide(body []byte) (t Turn, n int, matched, ok bool) {
	for _, sc := range s.sides {
		if !bytes.Contains(body, sc.match) {
			continue
		}
		if sc.next >= len(sc.turns) {
			return Turn{}, sc.base + sc.next + 1, true, false
		}
		sc.next++
		s.served++
		return sc.turns[sc.next-1], sc.base + sc.next, true, true
	}
	return Turn{}, 0, false, false
}

// Reply makes a turn from the request it answers, for a script that must use something only
// the client knows (an id it generated). The request is the one being answered.
func Reply(f func(req Request) Turn) Turn { return Turn{respond: f} }

// resolve computes a Reply turn.
func (t Turn) resolve(req Request) Turn {
	if t.respond == nil {
		return t
	}
	return t.respond(req)
}

// LastToolResultText returns the text of the request's last tool result (Anthropic API),
// for Reply functions.
func (r Request) LastToolResultText() string {
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) == 0 {
		return ""
	}
	var blocks []struct {
		Type    string `json:"type"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal(body.Messages[len(body.Messages)-1].Content, &blocks)
	text := ""
	for _, b := range blocks {
		if b.Type == "tool_result" {
			text = ""
			for _, c := range b.Content {
				text += c.Text
			}
		}
	}
	return text
}
