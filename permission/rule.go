package permission

import (
	"errors"
	"path/filepath"
	"strings"
	"unicode"
)

// RuleValue is the parsed form of a rule string: "Bash" or "Bash(npm test:*)".
// Content is empty for a tool-wide rule.
type RuleValue struct {
	Tool    string `json:"toolName"`
	Content string `json:"ruleContent,omitempty"`
}

// legacyToolNames maps old tool names to their current ones, so rules written for earlier
// versions keep working.
var legacyToolNames = map[string]string{
	"Task":            "Agent",
	"KillShell":       "TaskStop",
	"AgentOutputTool": "TaskOutput",
	"BashOutputTool":  "TaskOutput",
}

// NormalizeToolName maps a legacy tool name to its current name.
func NormalizeToolName(name string) string {
	if n, ok := legacyToolNames[name]; ok {
		return n
	}
	return name
}

// ParseRule parses a rule string. It never fails: anything that is not Tool(content) is a tool
// name. Tool() and Tool(*) are tool-wide. Use [ValidateRule] first for strings from files.
func ParseRule(s string) RuleValue {
	open := indexUnescaped(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") || isEscapedAt(s, len(s)-1) {
		return RuleValue{Tool: NormalizeToolName(s)}
	}
	tool := s[:open]
	content := unescapeContent(s[open+1 : len(s)-1])
	if content == "*" {
		content = ""
	}
	return RuleValue{Tool: NormalizeToolName(tool), Content: content}
}

// String formats the rule so that ParseRule(v.String()) == v.
func (v RuleValue) String() string {
	if v.Content == "" {
		return v.Tool
	}
	return v.Tool + "(" + escapeContent(v.Content) + ")"
}

// IsToolWide reports whether the rule applies to the whole tool.
func (v RuleValue) IsToolWide() bool { return v.Content == "" }

func unescapeContent(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	s = strings.ReplaceAll(s, `\(`, "(")
	s = strings.ReplaceAll(s, `\)`, ")")
	return strings.ReplaceAll(s, `\\`, `\`)
}

func escapeContent(s string) string {
	if !strings.ContainsAny(s, `\()`) {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "(", `\(`)
	return strings.ReplaceAll(s, ")", `\)`)
}

// isEscapedAt reports whether s[i] is preceded by an odd number of backslashes.
func isEscapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

func indexUnescaped(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c && !isEscapedAt(s, i) {
			return i
		}
	}
	return -1
}

// IsMCPName reports whether a tool or rule name is an MCP name (mcp__server or mcp__server__tool).
func IsMCPName(name string) bool { return strings.HasPrefix(name, "mcp__") }

// MCPServerRule is the rule value that covers every tool of the server of the MCP tool
// name (mcp__srv for mcp__srv__echo), as the rules' matching reads the server; false for a
// name that is not an MCP tool's.
func MCPServerRule(name string) (RuleValue, bool) {
	srv, tool := mcpServer(name)
	if !IsMCPName(name) || srv == "" || tool == "" {
		return RuleValue{}, false
	}
	return RuleValue{Tool: "mcp__" + srv}, true
}

// mcpServer returns the server part of an MCP tool name.
func mcpServer(name string) (server string, tool string) {
	rest := strings.TrimPrefix(name, "mcp__")
	if i := strings.Index(rest, "__"); i >= 0 {
		return rest[:i], rest[i+2:]
	}
	return rest, ""
}

// mcpGlob reports an MCP rule name with a * that is not the whole-server form mcp__srv__*:
// mcp__*, mcp__github__get_*, mcp__*__search.
func mcpGlob(ruleTool string) bool {
	if !strings.Contains(ruleTool, "*") {
		return false
	}
	srv, tool := mcpServer(ruleTool)
	return strings.Contains(srv, "*") || tool != "*"
}

// mcpGlobMatch matches an MCP tool name against a rule name whose every * stands for any run
// of characters (underscores included, so mcp__* covers every server).
func mcpGlobMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return len(rest) >= len(last) && strings.HasSuffix(rest, last)
}

// pathRuleTools are the tools whose rule content is a path pattern.
var pathRuleTools = map[string]bool{"Read": true, "Write": true, "Edit": true, "Glob": true, "NotebookRead": true, "NotebookEdit": true}

// ValidateRule checks a rule string from a settings file. Claude Code drops invalid entries with
// a warning and loads the rest of the file; so does Reins, with the entry's position.
func ValidateRule(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("permission rule cannot be empty")
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		if isEscapedAt(s, i) {
			continue
		}
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return errors.New("mismatched parentheses")
			}
		}
	}
	if depth != 0 {
		return errors.New("mismatched parentheses")
	}
	if i := strings.Index(s, "()"); i >= 0 && !isEscapedAt(s, i) {
		return errors.New("empty parentheses: write the tool name alone for a tool-wide rule")
	}
	open := indexUnescaped(s, '(')
	name := s
	if open >= 0 {
		name = s[:open]
	}
	if name == "" {
		return errors.New("tool name cannot be empty")
	}
	if IsMCPName(name) {
		if open >= 0 {
			return errors.New("MCP rules do not take parentheses: use mcp__server, mcp__server__* or mcp__server__tool")
		}
		return nil
	}
	if r := []rune(name)[0]; !unicode.IsUpper(r) {
		return errors.New("tool names must start with uppercase")
	}
	if open < 0 {
		return nil
	}
	if !strings.HasSuffix(s, ")") {
		return errors.New("text after the closing parenthesis")
	}
	v := ParseRule(s)
	switch {
	case v.Tool == "Bash":
		if i := strings.Index(v.Content, ":*"); i >= 0 {
			if v.Content == ":*" {
				return errors.New(`the prefix before ":*" cannot be empty`)
			}
			if i != len(v.Content)-2 {
				return errors.New(`":*" is only allowed at the end of a Bash rule`)
			}
		}
	case pathRuleTools[v.Tool]:
		if strings.Contains(v.Content, ":*") {
			return errors.New(`":*" is Bash prefix syntax; path rules use glob patterns such as dir/**`)
		}
		c := v.Content
		if r, ok := windowsRuleContent(c); ok && filepath.Separator == '\\' {
			c = r // C:\x\** as the rule //c/x/** it stands for
		}
		if err := checkPathStars(c); err != nil {
			return err
		}
	case v.Tool == "WebSearch":
		if strings.ContainsAny(v.Content, "*?") {
			return errors.New("WebSearch rules do not support wildcards")
		}
	case v.Tool == "WebFetch":
		switch {
		case strings.Contains(v.Content, "://"), strings.HasPrefix(v.Content, "http"):
			return errors.New(`WebFetch rules name a domain, not a URL: use WebFetch(domain:example.com)`)
		case !strings.HasPrefix(v.Content, "domain:"):
			return errors.New(`WebFetch rules must start with "domain:"`)
		case strings.TrimPrefix(v.Content, "domain:") == "":
			return errors.New("WebFetch domain cannot be empty")
		}
	}
	return nil
}

// checkPathStars is the loose check that a "**" stands as a whole path segment.
func checkPathStars(p string) error {
	for i := 0; i+1 < len(p); i++ {
		if p[i] != '*' || p[i+1] != '*' {
			continue
		}
		j := i
		for j < len(p) && p[j] == '*' {
			j++
		}
		if (i > 0 && p[i-1] != '/') || (j < len(p) && p[j] != '/') {
			return errors.New(`"**" must be a whole path segment, as in dir/** or **/name`)
		}
		i = j
	}
	return nil
}
