package client

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// MaxToolNameLen is the longest tool name the Anthropic API takes (`^[a-zA-Z0-9_-]{1,64}$`;
// tool definitions were later allowed 128, but a tool_reference still only 64, so the
// stricter holds).
const MaxToolNameLen = 64

// hashLen is how many hex digits of the hash end a name that had to be changed.
const hashLen = 8

// minToolPart is the least of the tool's own name a changed name keeps; a server name that
// leaves less room is too long.
const minToolPart = 8

// poolName is what a server's tool is called in the pool, or why it cannot be offered.
type poolName struct {
	name string
	// plain is mcp__<server>__<tool>, the name a person's rules were written for.
	plain string
	// note says why name is not plain; refused, why the tool is left out.
	note, refused string
}

// assignNames names every tool of the connected servers. A tool keeps mcp__<server>__<tool>
// unless that is longer than the API allows or is also another tool's name (two names that
// differ only in characters the API does not take, or a server "a" with a tool "b__c" beside
// a server "a__b" with a tool "c"): then it is mcp__<server>__<tool, cut>_<hash>, where the
// hash is of the server's and the tool's own names, so the name is the same in every run and
// differs between the two. Names that still meet are refused, as are the tools of a server
// whose name leaves no room.
func assignNames(defs map[*server][]string) map[*server]map[string]poolName {
	out := map[*server]map[string]poolName{}
	count := map[string]int{}
	for s, tools := range defs {
		for _, t := range tools {
			count[ToolName(s.name, t)]++
		}
	}
	final := map[string]int{}
	for s, tools := range defs {
		out[s] = map[string]poolName{}
		for _, t := range tools {
			p := poolName{plain: ToolName(s.name, t)}
			switch {
			case count[p.plain] > 1:
				p.name, p.refused = hashedName(s.name, t)
				p.note = fmt.Sprintf("%s is named %s, since %s would also name %s", t, p.name, p.plain, others(defs, s, t, p.plain))
			case len(p.plain) > MaxToolNameLen:
				p.name, p.refused = hashedName(s.name, t)
				p.note = fmt.Sprintf("%s is named %s, since %s is longer than the API's %d characters", t, p.name, p.plain, MaxToolNameLen)
			default:
				p.name = p.plain
			}
			if p.refused == "" {
				final[p.name]++
			}
			out[s][t] = p
		}
	}
	for _, tools := range out {
		for t, p := range tools {
			if p.refused == "" && final[p.name] > 1 {
				p.refused = fmt.Sprintf("its name %s is also another tool's, even with the hash", p.name)
				tools[t] = p
			}
		}
	}
	return out
}

// hashedName is mcp__<server>__<tool>_<hash>, the tool part cut to fit.
func hashedName(server, tool string) (name, refused string) {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	h := hex.EncodeToString(sum[:])[:hashLen]
	prefix := "mcp__" + NormalizeName(server) + "__"
	room := MaxToolNameLen - len(prefix) - 1 - hashLen
	if room < minToolPart {
		return "", fmt.Sprintf("the server's name %q is too long for tool names of at most %d characters; give the server a shorter name", server, MaxToolNameLen)
	}
	part := NormalizeName(tool)
	if len(part) > room {
		part = part[:room]
	}
	return prefix + part + "_" + h, ""
}

// others names the tools whose plain name is plain, besides server s's tool t.
func others(defs map[*server][]string, s *server, t, plain string) string {
	var out []string
	for o, tools := range defs {
		for _, ot := range tools {
			if (o != s || ot != t) && ToolName(o.name, ot) == plain {
				out = append(out, fmt.Sprintf("server %s, tool %q", o.name, ot))
			}
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// poolNames assigns the pool names of every connected server's tools from their current lists.
func (m *Manager) poolNames() map[*server]map[string]poolName {
	defs := map[*server][]string{}
	for _, s := range m.list() {
		s.mu.Lock()
		if s.state == StateConnected {
			for _, t := range s.tools {
				defs[s] = append(defs[s], t.Name)
			}
		}
		s.mu.Unlock()
	}
	return assignNames(defs)
}
