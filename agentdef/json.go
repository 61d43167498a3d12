package agentdef

import (
	"bytes"
	"encoding/json"
	"errors"
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
// of every definition is reported, each at the line and column of the field it is about, in
// the order written: the value is often one long command-line argument, where the column is
// what finds the mistake.
func ParseJSON(origin string, data []byte, src Source) ([]*Definition, error) {
	lines := posjson.NewLines(data)
	if err := posjson.Check(data); err != nil {
		var oe *posjson.OffsetError
		off := 0
		if errors.As(err, &oe) {
			off = oe.Off
		}
		return nil, lines.Errorf(origin, off, "not a JSON object of agent definitions: %v", err)
	}
	agents, ok := posjson.Fields(data, 0)
	if !ok {
		return nil, lines.Errorf(origin, firstByte(data), "not a JSON object of agent definitions: %s", posjson.KindAt(data, 0))
	}
	var out []*Definition
	var errs []error
	for _, name := range fieldNames(agents) {
		f, _ := posjson.Last(agents, name)
		if !validName().MatchString(name) {
			errs = append(errs, lines.Errorf(origin, f.KeyOff, "invalid agent name %q: use letters, digits, '-' and '_' (at most 64)", name))
			continue
		}
		def, problems := parseJSONDef(name, data, f)
		for _, p := range problems {
			errs = append(errs, lines.Errorf(origin, p.off, "agent %q: %s", name, p.msg))
		}
		def.Source = src
		out = append(out, def)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// problem is one thing wrong in a definition, at the offset of the field it is about.
type problem struct {
	off int
	msg string
}

// fieldNames returns the distinct keys of fields in the order first written; a duplicate
// counts as its last value, as JSON.parse keeps it.
func fieldNames(fields []posjson.Field) []string {
	var names []string
	for _, f := range fields {
		if !slices.Contains(names, f.Key) {
			names = append(names, f.Key)
		}
	}
	return names
}

// firstByte is the offset of data's first non-blank byte.
func firstByte(data []byte) int {
	return len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
}

// parseJSONDef reads the definition held by the field def of data, returning every problem
// found in it.
func parseJSONDef(name string, data []byte, def posjson.Field) (*Definition, []problem) {
	d := &Definition{Name: name}
	members, ok := posjson.Fields(data, def.Off)
	if !ok {
		return d, []problem{{def.Off, "a definition must be an object with a \"description\" and a \"prompt\""}}
	}
	fields := map[string]posjson.Field{}
	var problems []problem
	for _, k := range fieldNames(members) {
		f, _ := posjson.Last(members, k)
		fields[k] = f
		switch why, refused := refusedFields[k]; {
		case slices.Contains(jsonFields, k):
		case refused && !setsNothing(f.Raw(data)):
			problems = append(problems, problem{f.KeyOff, fmt.Sprintf("%q cannot be honoured: %s", k, why)})
		case refused:
		default:
			problems = append(problems, problem{f.KeyOff, fmt.Sprintf("unknown field %q%s", k, posjson.Suggest(k, jsonFields))})
		}
	}
	decode := func(key string, dst any, want string) bool {
		f, ok := fields[key]
		if ok && json.Unmarshal(f.Raw(data), dst) != nil {
			problems = append(problems, problem{f.Off, fmt.Sprintf("%q must be %s", key, want)})
			return false
		}
		return ok
	}
	decode("description", &d.Description, "a string")
	decode("prompt", &d.Prompt, "a string")
	decode("tools", &d.Tools, "a list of tool names")
	decode("disallowedTools", &d.DisallowedTools, "a list of tool names")
	decode("model", &d.Model, "a string")
	var mode string
	if decode("permissionMode", &mode, "a string") && mode != "" {
		m, err := parseMode(mode)
		if err != nil {
			problems = append(problems, problem{fields["permissionMode"].Off, err.Error()})
		}
		d.PermissionMode = m
	}
	if strings.TrimSpace(d.Description) == "" || strings.TrimSpace(d.Prompt) == "" {
		problems = append(problems, problem{def.Off, "a definition needs a \"description\" and a \"prompt\""})
	}
	problems = append(problems, d.readLimits(data, fields)...)
	slices.SortStableFunc(problems, func(a, b problem) int { return a.off - b.off })
	return d, problems
}

// readLimits reads maxTurns, background and mcpServers.
func (d *Definition) readLimits(data []byte, fields map[string]posjson.Field) []problem {
	var problems []problem
	if f, ok := fields["maxTurns"]; ok && string(f.Raw(data)) != "null" {
		var n float64
		if json.Unmarshal(f.Raw(data), &n) != nil || n < 1 || n != float64(int(n)) || n > 1<<30 {
			problems = append(problems, problem{f.Off, fmt.Sprintf("\"maxTurns\" must be a whole number of at least 1, not %s", f.Raw(data))})
		} else {
			d.MaxTurns = int(n)
		}
	}
	if f, ok := fields["background"]; ok && string(f.Raw(data)) != "null" && json.Unmarshal(f.Raw(data), &d.Background) != nil {
		problems = append(problems, problem{f.Off, fmt.Sprintf("\"background\" must be true or false, not %s", f.Raw(data))})
	}
	if f, ok := fields["mcpServers"]; ok && string(f.Raw(data)) != "null" {
		names, p := mcpServerNames(f.Raw(data))
		d.MCPServers = names
		for _, msg := range p {
			problems = append(problems, problem{f.Off, msg})
		}
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
