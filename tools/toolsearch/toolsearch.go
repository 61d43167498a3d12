// Package toolsearch decides when tool schemas are deferred and provides ToolSearch, the tool
// the model uses to load them.
//
// Deferral follows Claude Code's design: a tool whose Spec says Defer (every MCP tool, a few
// built-ins) and is not AlwaysLoad is deferred when the deferred tools' definitions would take
// more than a share of the context window ([Decide]). Their schemas are then not sent; the
// model sees their names in ToolSearch's description and calls ToolSearch with keywords or
// "select:name1,name2"; the matching tools' schemas are loaded (tool.Deferral) for every
// following request, and their full definitions come back as the result.
package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/reinsdev/reins/tool"
)

// Name is the tool's name.
const Name = "ToolSearch"

// DefaultPercent is the share of the context window deferred tools may take before they are
// deferred; DefaultContextTokens the window assumed.
const (
	DefaultPercent       = 10
	DefaultContextTokens = 200_000
)

// Threshold reads ENABLE_TOOL_SEARCH: "true" (always defer), "false" (never), "auto" or
// "auto:N" (defer when deferred tools exceed N% of the context). Empty means auto:10.
func Threshold(v string) (percent int, err error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "auto":
		return DefaultPercent, nil
	case "true", "1", "yes", "on":
		return 0, nil
	case "false", "0", "no", "off":
		return 100, nil
	}
	if n, ok := strings.CutPrefix(strings.ToLower(v), "auto:"); ok {
		p, err := strconv.Atoi(n)
		if err == nil && p >= 0 && p <= 100 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("ENABLE_TOOL_SEARCH=%q: want true, false, auto or auto:N with N from 0 to 100", v)
}

// Tokens estimates a tool definition's size in tokens (four characters a token).
func Tokens(t tool.Tool) int {
	s := t.Spec()
	return (len(t.Name()) + len(s.Description) + len(s.InputSchema) + 3) / 4
}

// Decide reports whether deferral is active for the pool: whether the deferrable tools'
// definitions exceed percent of contextTokens. 100 never defers; 0 always defers when any
// tool is deferrable.
func Decide(ts []tool.Tool, percent, contextTokens int) bool {
	if percent >= 100 {
		return false
	}
	total, any := 0, false
	for _, t := range ts {
		if s := t.Spec(); s.Defer && !s.AlwaysLoad {
			total += Tokens(t)
			any = true
		}
	}
	return any && total*100 > percent*contextTokens
}

// Input is ToolSearch's input.
type Input struct {
	Query      string `json:"query" jsonschema:"Keywords to search tool names, descriptions and hints for; prefix a term with + to require it; or select:Name1,Name2 to load tools by exact name"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"The most tools to return (default 5)"`
}

type loaded struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// New returns ToolSearch over the deferred tools of pool.
func New(pool []tool.Tool, d *tool.Deferral) tool.Tool {
	var deferred []tool.Tool
	for _, t := range pool {
		if d.Deferred(t) {
			deferred = append(deferred, t)
		}
	}
	names := make([]string, len(deferred))
	for i, t := range deferred {
		names[i] = t.Name()
	}
	prompt := `Loads the definitions of deferred tools so that you can call them. Deferred tools are named below but their parameters are not known until you load them: calling one before loading it fails.

Query forms:
- "select:Name1,Name2" loads those tools by exact name.
- Keywords ("slack message") search tool names, descriptions and hints; "+slack send" requires "slack".

The result lists each loaded tool with its description and JSON Schema parameters; they stay available for the rest of the conversation.

Deferred tools:
` + strings.Join(names, "\n")
	return tool.Build(tool.Def[Input]{
		Name:            Name,
		Description:     prompt,
		Prompt:          prompt,
		SearchHint:      "find load deferred tools",
		ReadOnly:        func(Input) bool { return true },
		ConcurrencySafe: func(Input) bool { return true },
		OpenWorld:       func(Input) bool { return false },
		Validate: func(_ context.Context, in Input, _ *tool.Env) *tool.Failure {
			if strings.TrimSpace(in.Query) == "" {
				return tool.Fail((&tool.InputError{Tool: Name, Issues: []string{"The parameter `query` must not be empty"}}).Error())
			}
			return nil
		},
		Call: func(_ context.Context, in Input, _ *tool.Env) (tool.Result, error) {
			found := search(deferred, in)
			if len(found) == 0 {
				return tool.TextResult("No matching deferred tools found."), nil
			}
			var out []loaded
			var got []string
			for _, t := range found {
				s := t.Spec()
				out = append(out, loaded{Name: t.Name(), Description: s.Description, Parameters: s.InputSchema})
				got = append(got, t.Name())
			}
			d.Load(got...)
			b, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				return tool.Result{}, err
			}
			return tool.Result{Content: []tool.Content{tool.Text("Loaded " + strings.Join(got, ", ") + ":\n" + string(b))}, Output: got}, nil
		},
	})
}

var wordSplit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// words splits a name or text into lower-case words: mcp__github__create_issue and
// createIssue both give create, issue.
func words(s string) []string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return slices.DeleteFunc(wordSplit().Split(strings.ToLower(b.String()), -1), func(w string) bool { return w == "" })
}

func search(ts []tool.Tool, in Input) []tool.Tool {
	max := in.MaxResults
	if max <= 0 {
		max = 5
	}
	q := strings.TrimSpace(in.Query)
	if list, ok := strings.CutPrefix(q, "select:"); ok {
		var out []tool.Tool
		for _, n := range strings.Split(list, ",") {
			n = strings.TrimSpace(n)
			for _, t := range ts {
				if t.Name() == n && !slices.Contains(out, t) {
					out = append(out, t)
				}
			}
		}
		return out
	}
	var required, terms []string
	for _, f := range strings.Fields(strings.ToLower(q)) {
		if r, ok := strings.CutPrefix(f, "+"); ok && r != "" {
			required = append(required, r)
			terms = append(terms, r)
		} else {
			terms = append(terms, f)
		}
	}
	type scored struct {
		t     tool.Tool
		score int
	}
	var hits []scored
	for _, t := range ts {
		name := strings.ToLower(t.Name())
		nameWords := words(t.Name())
		hint := strings.ToLower(t.Spec().SearchHint)
		desc := strings.ToLower(t.Spec().Description)
		text := name + " " + hint + " " + desc
		ok := true
		for _, r := range required {
			if !strings.Contains(text, r) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		score := 0
		for _, term := range terms {
			switch {
			case name == term:
				score += 20
			case slices.Contains(nameWords, term):
				score += 10
			case strings.Contains(name, term):
				score += 5
			}
			if strings.Contains(hint, term) {
				score += 4
			}
			if slices.Contains(words(desc), term) {
				score += 2
			}
		}
		if score > 0 {
			hits = append(hits, scored{t, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var out []tool.Tool
	for i := 0; i < len(hits) && i < max; i++ {
		out = append(out, hits[i].t)
	}
	return out
}
