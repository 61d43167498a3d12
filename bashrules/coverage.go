package bashrules

import (
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
)

// An allow rule covers what the person wrote and what the knowledge base knows to be more of
// the same: under Bash(prog:*) or Bash(prog sub:*), an option the program's entry does not
// know (when the entry is complete), or one it marks as running code, naming a program to
// run or changing the system beyond files (date --set, ss --kill: an effect, not more of the
// same), is not covered unless the rule itself names it. The call then asks, naming the option.
// Writes stay with the path stage, which checks every file a known option writes (a protected
// file or one outside the working directories asks whatever the rule): Bash(sed:*) covers
// sed -i on the project's files, as it did. A program with no entry keeps the rule as
// written; its paths still meet the path checks and deny rules, which do not depend on it.

// uncovered says why a prefix or wildcard allow rule does not cover the command's options, or
// "" when it does.
func uncovered(r *permission.Rule, c *Command) string {
	ri := ruleInfoOf(r.Value.Content)
	ruleWords := ri.words
	if len(ruleWords) == 0 || ri.entry == nil {
		return ""
	}
	at := -1
	for i, w := range c.Argv {
		if w.Known && path.Base(w.Value) == ruleWords[0] {
			at = i
			break
		}
	}
	if at < 0 {
		return ""
	}
	e := ri.entry
	var kbuf [8]knowledge.Arg
	p := parsedPool.Get().(*knowledge.Parsed)
	defer parsedPool.Put(p)
	e.ParseInto(kbArgs(c.Argv[at+1:], kbuf[:]), p)
	implied := ri.implied
	args := c.Argv[at+1:]
	for _, u := range p.Unknown {
		if e.NoOptions || impliedUnknown(ri, args, u) {
			// A nooptions entry (the runners: timeout, nice, sudo) lists no options to know;
			// the words after its own are the command it runs, decided as that command.
			continue
		}
		return u.Why + " to the knowledge base's entry for " + entryName(e, *p) + ", so the rule does not cover it"
	}
	for _, i := range p.AtFiles {
		return "argument " + args[i].Value + " makes " + e.Name() + " read more arguments from a file the rule does not name"
	}
	if why := beyondOptions(e, *p, args); why != "" {
		return why
	}
	if why := sigilDanger(e, *p, args); why != "" {
		return why + ", which the rule does not name"
	}
	for _, u := range p.Uses {
		if implied[u.Opt] || !u.Opt.Effects.Dangerous() && u.Opt.Effects&knowledge.State == 0 {
			continue
		}
		return "option " + u.Spelling + " of " + entryName(e, *p) + " " + effectWhy(u.Opt.Effects) + ", which the rule does not name"
	}
	return ""
}

// impliedUnknown reports an option the entry does not know that the rule's own words give:
// Bash(prog --x:*) covers --x whatever the entry says of it.
func impliedUnknown(ri *ruleInfo, args []Word, u knowledge.Unknown) bool {
	return slices.Contains(ri.words[1:], u.Text) || u.Word < len(args) && slices.Contains(ri.words[1:], args[u.Word].Value)
}

// beyondOptions says why options after a subcommand the entry does not list are not covered:
// what they do is not known (docker compose up -d, git frobnicate --all).
func beyondOptions(e *knowledge.Command, p knowledge.Parsed, args []Word) string {
	if p.Beyond < 0 {
		return ""
	}
	for _, w := range args[p.Beyond+1:] {
		if !w.Known {
			continue
		}
		if w.Value == "--" {
			return ""
		}
		if len(w.Value) > 1 && w.Value[0] == '-' && !isNumber(w.Value[1:]) {
			return "option " + w.Value + " follows " + e.Name() + " " + args[p.Beyond].Value + ", a subcommand the knowledge base's entry does not list, so the rule does not cover it"
		}
	}
	return ""
}

// sigilDanger says why an operand with a sigil is a command the program runs (vim +CMD), or "".
func sigilDanger(e *knowledge.Command, p knowledge.Parsed, args []Word) string {
	cmd := e
	if p.Sub != nil {
		cmd = p.Sub
	}
	if len(cmd.SigilEffects) == 0 {
		return ""
	}
	for _, i := range p.Operands {
		w := args[i]
		if !w.Known || len(w.Value) < 2 {
			continue
		}
		if canon, ok := cmd.Sigils[w.Value[0]]; ok && cmd.SigilEffects[canon].Dangerous() {
			return entryName(e, p) + " " + w.Value + " is a command " + e.Names[0] + " runs, which can run programs"
		}
	}
	return ""
}

func entryName(e *knowledge.Command, p knowledge.Parsed) string {
	if p.Sub != nil {
		return p.Sub.Name()
	}
	return e.Name()
}

func effectWhy(e knowledge.Effect) string {
	switch {
	case e&knowledge.Exec != 0:
		return "runs code or a command"
	case e.Dangerous():
		return "names a program to run"
	}
	return "changes the system beyond files"
}

// ruleInfo is what coverage needs of an allow rule, worked out once per rule text.
type ruleInfo struct {
	words   []string
	entry   *knowledge.Command
	implied map[*knowledge.Option]bool
}

// ruleInfos remembers rules by their text, up to maxRuleInfos of them (past that, each is
// worked out again: a bound, not a leak, for a process that loads many rule sets).
var (
	ruleInfos    sync.Map // rule content -> *ruleInfo
	ruleInfosLen atomic.Int64
)

const maxRuleInfos = 1 << 14

// parsedPool holds the buffers of parses whose results are read and dropped at once.
var parsedPool = sync.Pool{New: func() any { return new(knowledge.Parsed) }}

func ruleInfoOf(content string) *ruleInfo {
	if ri, ok := ruleInfos.Load(content); ok {
		return ri.(*ruleInfo)
	}
	ri := &ruleInfo{words: ruleWordsOf(content)}
	if len(ri.words) > 0 {
		if e, ok := knowledge.Facts(ri.words[0]); ok {
			ri.entry, ri.implied = e, impliedOptions(e, ri.words[1:])
		}
	}
	if ruleInfosLen.Add(1) <= maxRuleInfos {
		ruleInfos.Store(content, ri)
	}
	return ri
}

// ruleWordsOf is the literal words of a prefix or wildcard rule, up to its first pattern.
func ruleWordsOf(content string) []string {
	content = strings.TrimSpace(content)
	content = strings.TrimSuffix(content, ":*")
	var out []string
	for _, f := range strings.Fields(content) {
		if strings.ContainsAny(f, "*?[]\\'\"$`{}") {
			break
		}
		out = append(out, f)
	}
	if len(out) > 0 {
		out[0] = path.Base(out[0])
	}
	return out
}

// impliedOptions are the options a rule's own words use: Bash(sort -o out:*) covers -o.
func impliedOptions(e *knowledge.Command, words []string) map[*knowledge.Option]bool {
	out := map[*knowledge.Option]bool{}
	args := make([]knowledge.Arg, len(words))
	for i, w := range words {
		args[i] = knowledge.Arg{Value: w, Known: true}
	}
	for _, u := range e.Parse(args).Uses {
		out[u.Opt] = true
	}
	return out
}
