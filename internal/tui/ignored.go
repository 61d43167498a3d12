package tui

import (
	"fmt"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// Why a rule of the settings does not apply.
const (
	IgnoredUntrusted = "untrusted" // a project allow rule or directory of a folder not trusted
	IgnoredShadowed  = "shadowed"  // an allow rule a deny or ask rule always wins over
	IgnoredInvalid   = "invalid"   // not a rule, or not a string
)

// IgnoredRule is one rule or directory of the settings that the session does not apply, and
// why, as /permissions and the dialog's "?" view name it. An untrusted project's lists are not
// read at all, so an unread list is one IgnoredRule with its Count and no Value.
type IgnoredRule struct {
	// List is allow, ask, deny or additionalDirectories.
	List  string
	Value string
	// Where is file:line:col, or the file alone.
	Where string
	// Why is one of the Ignored* words, or the settings' own status (managedOnly, missing).
	Why    string
	Reason string
	// Count is the number of entries of a list that was counted, not read.
	Count int
}

func (ig IgnoredRule) String() string {
	what := fmt.Sprintf("%s %s", ig.List, ig.Value)
	if ig.Count > 0 {
		what = fmt.Sprintf("%d %s %s not read", ig.Count, ig.List, plural(ig.Count, "entry", "entries"))
	}
	s := fmt.Sprintf("%s  %s  %s", what, ig.Where, ig.Why)
	if ig.Reason != "" {
		s += ": " + ig.Reason
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ignored is the session's ignored rules of the moment: shadowed allows change with the rules.
func (c *Config) ignored() []IgnoredRule {
	if c.Ignored == nil {
		return nil
	}
	return c.Ignored()
}

// ignoredSection is the part of /permissions that names every ignored rule.
func ignoredSection(igs []IgnoredRule, cwd string) string {
	if len(igs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Ignored rules:\n")
	for _, ig := range igs {
		ig.Where = displayPath(ig.Where, cwd)
		b.WriteString("  " + ig.String() + "\n")
	}
	return b.String()
}

// ignoredForCall are the ignored rules that could have decided a call of tool: those that
// name the tool, and every list that was not read (what it holds is unknown, so it may have).
// The rules are not matched against the input: a rule for the same tool is a hint worth
// seeing, and a list nobody read cannot be matched at all.
func ignoredForCall(igs []IgnoredRule, tool string) []string {
	tool = permission.NormalizeToolName(tool)
	var out []string
	for _, ig := range igs {
		switch {
		case ig.Count > 0 && ig.Why == IgnoredUntrusted:
			out = append(out, fmt.Sprintf("%d %s %s in %s not read: the folder is not trusted (reins trust, or answer Yes to the trust dialog at start)",
				ig.Count, ig.List, plural(ig.Count, "entry", "entries"), ig.Where))
		case ig.Count > 0:
			out = append(out, ig.String())
		case ig.List != "additionalDirectories" && ruleTool(ig.Value) == tool:
			out = append(out, ig.String())
		}
	}
	return out
}

// ruleTool is the tool a rule names, read up to its "(" so that an invalid rule (an
// unbalanced parenthesis) still names one.
func ruleTool(value string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(value), "(")
	return permission.NormalizeToolName(strings.TrimSpace(name))
}
