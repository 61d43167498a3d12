package agentdef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/reinsdev/reins/posjson"
)

// jsonFields are the fields of a JSON definition (--agents, an SDK initialize) that Reins
// honours.
var jsonFields = []string{"description", "prompt", "tools", "disallowedTools", "model", "permissionMode",
	"maxTurns", "background", "mcpServers"}

// refusedFields are the Agent SDK's AgentDefinition fields Reins cannot honour, each with why.
// A definition that sets one is refused rather than run without it: the caller wrote it
// expecting it to hold. A field set to nothing (null, false, "", [] or 0) asks for nothing and
// is accepted.
var refusedFields = map[string]string{
	"skills":                              "reins has no skills yet",
	"effort":                              "reins has no per-agent reasoning effort (sub-agents run with the session's thinking budget)",
	"memory":                              "reins has no per-agent memory folders (agent-memory/<type>/); a sub-agent reads the session's memory files",
	"initialPrompt":                       "reins never runs a definition as the main thread's agent, where the initial prompt is sent",
	"criticalSystemReminder_EXPERIMENTAL": "reins has no system reminders",
	"autoCompactWindow":                   "reins has no per-agent compaction window (sub-agents compact at the session's)",
	"omitClaudeMd":                        "reins' sub-agents always read the session's memory files",
	"observer":                            "reins has no observer agents",
	"observerMessage":                     "reins has no observer agents",
}

// RefusedFields lists the AgentDefinition fields Reins refuses, sorted (for docs and tests).
func RefusedFields() []string {
	out := make([]string, 0, len(refusedFields))
	for k := range refusedFields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParseJSON parses the object of --agents or an SDK initialize's agents: {"name":
// {"description", "prompt", "tools", "disallowedTools", "model", "permissionMode",
// "maxTurns", "background", "mcpServers"}}. origin names the source in errors. Every problem
// of a definition is reported, each naming its field.
func ParseJSON(origin string, data []byte, src Source) ([]*Definition, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object of agent definitions: %w", origin, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s: not a JSON object of agent definitions: null", origin)
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*Definition
	for _, name := range names {
		if !validName().MatchString(name) {
			return nil, fmt.Errorf("%s: invalid agent name %q: use letters, digits, '-' and '_' (at most 64)", origin, name)
		}
		def, problems := parseJSONDef(name, raw[name])
		if len(problems) > 0 {
			return nil, fmt.Errorf("%s: agent %q: %s", origin, name, strings.Join(problems, "; "))
		}
		def.Source = src
		out = append(out, def)
	}
	return out, nil
}

// parseJSONDef reads one definition, returning every problem found in it.
func parseJSONDef(name string, data json.RawMessage) (*Definition, []string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return nil, []string{"a definition must be an object with a \"description\" and a \"prompt\""}
	}
	var problems []string
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch why, refused := refusedFields[k]; {
		case slices.Contains(jsonFields, k):
		case refused && !setsNothing(fields[k]):
			problems = append(problems, fmt.Sprintf("%q cannot be honoured: %s", k, why))
		case refused:
		default:
			problems = append(problems, fmt.Sprintf("unknown field %q%s", k, posjson.Suggest(k, jsonFields)))
		}
	}
	d := &Definition{Name: name}
	str := func(key string, dst *string) {
		if v, ok := fields[key]; ok && json.Unmarshal(v, dst) != nil {
			problems = append(problems, fmt.Sprintf("%q must be a string", key))
		}
	}
	list := func(key string, dst *[]string) {
		if v, ok := fields[key]; ok && json.Unmarshal(v, dst) != nil {
			problems = append(problems, fmt.Sprintf("%q must be a list of tool names", key))
		}
	}
	str("description", &d.Description)
	str("prompt", &d.Prompt)
	list("tools", &d.Tools)
	list("disallowedTools", &d.DisallowedTools)
	str("model", &d.Model)
	var mode string
	str("permissionMode", &mode)
	if mode != "" {
		m, err := parseMode(mode)
		if err != nil {
			problems = append(problems, err.Error())
		}
		d.PermissionMode = m
	}
	if strings.TrimSpace(d.Description) == "" || strings.TrimSpace(d.Prompt) == "" {
		problems = append(problems, "a definition needs a \"description\" and a \"prompt\"")
	}
	problems = append(problems, d.readLimits(fields)...)
	return d, problems
}

// readLimits reads maxTurns, background and mcpServers.
func (d *Definition) readLimits(fields map[string]json.RawMessage) []string {
	var problems []string
	if v, ok := fields["maxTurns"]; ok && string(v) != "null" {
		var n float64
		if json.Unmarshal(v, &n) != nil || n < 1 || n != float64(int(n)) || n > 1<<30 {
			problems = append(problems, fmt.Sprintf("\"maxTurns\" must be a whole number of at least 1, not %s", v))
		} else {
			d.MaxTurns = int(n)
		}
	}
	if v, ok := fields["background"]; ok && string(v) != "null" && json.Unmarshal(v, &d.Background) != nil {
		problems = append(problems, fmt.Sprintf("\"background\" must be true or false, not %s", v))
	}
	if v, ok := fields["mcpServers"]; ok && string(v) != "null" {
		names, p := mcpServerNames(v)
		d.MCPServers, problems = names, append(problems, p...)
	}
	return problems
}

// mcpServerNames reads an AgentDefinition's mcpServers: names of the session's servers. An
// inline server config ({"name": {config}}) is refused, naming it: a sub-agent of Reins does
// not start servers of its own.
func mcpServerNames(v json.RawMessage) ([]string, []string) {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return nil, []string{"\"mcpServers\" must be a list of server names"}
	}
	names := []string{} // not nil: an empty list gives the sub-agent no server's tools
	var problems []string
	for i, it := range items {
		var name string
		if json.Unmarshal(it, &name) == nil {
			if strings.TrimSpace(name) == "" {
				problems = append(problems, fmt.Sprintf("\"mcpServers\"[%d] is an empty server name", i))
				continue
			}
			names = append(names, name)
			continue
		}
		var inline map[string]json.RawMessage
		if json.Unmarshal(it, &inline) == nil && len(inline) > 0 {
			keys := make([]string, 0, len(inline))
			for k := range inline {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			problems = append(problems, fmt.Sprintf("\"mcpServers\"[%d] (%s): an inline server config cannot be honoured: reins' sub-agents start no servers of their own; configure it for the session (--mcp-config or the SDK's mcpServers) and name it here", i, strings.Join(keys, ", ")))
			continue
		}
		problems = append(problems, fmt.Sprintf("\"mcpServers\"[%d] must be a server name, not %s", i, it))
	}
	return names, problems
}

// setsNothing reports whether a JSON value asks for nothing: null, false, 0, "" or an empty
// list or object.
func setsNothing(v json.RawMessage) bool {
	switch strings.TrimSpace(string(v)) {
	case "null", "false", "0", `""`, "[]", "{}":
		return true
	}
	return false
}
