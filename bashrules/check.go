package bashrules

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/cmdline"
	"github.com/reinsdev/reins/permission"
)

// Limits on what a decision takes on. Past them the answer is ask.
const (
	// MaxCommandLength is the longest command string that can be allowed.
	MaxCommandLength = 10000
	// MaxSubcommands is the most simple commands one allowed command may hold.
	MaxSubcommands = 50
)

// Check decides a Bash command for the permission engine: it is the Bash tool's
// CheckPermissions. It returns Deny when a deny rule (or a Read/Edit deny for a path the command
// touches) forbids any part; Ask with a ReasonSafetyCheck or ask-rule reason for the asks nothing
// may bypass; Ask for paths outside the working directories and for what the analysis cannot
// see; Passthrough when nothing allows some part; Allow only when every part is allowed.
func Check(ctx context.Context, pc *permission.Context, command string) permission.Decision {
	k := newChecker(ctx, pc, command)
	d := k.run()
	if poolCheckers {
		checkers.Put(k)
	}
	return d
}

// checkers are reused: a checker carries a few kilobytes of first arrays for one decision
// (see checker), which would otherwise be allocated, cleared and collected every time. A
// decision never points into its checker (reasons have their own chunk, see reason), and
// newChecker clears the whole checker, so nothing passes from one decision to the next.
var checkers = sync.Pool{New: func() any { return new(checker) }}

// poolCheckers is turned off by the test that compares pooled decisions with fresh ones.
var poolCheckers = true

func newChecker(ctx context.Context, pc *permission.Context, command string) *checker {
	idx := indexesFor(pc)
	var k *checker
	if poolCheckers {
		k = checkers.Get().(*checker)
		// The chunks pass from one decision to the next (see analyzeInto).
		walk := k.walk
		*k = checker{}
		k.walk = walk
	} else {
		k = new(checker)
	}
	k.pc, k.command, k.rec.on = pc, command, permission.Tracing(ctx)
	k.idx = idx
	k.verdicts = verdicts{rec: &k.rec, command: command, denyAsk: idx.denyAsk}
	// The path checks of one command line share their Lstat results (see
	// permission.StatCacheContext).
	sctx := k.statCtx.Init(ctx)
	k.rec.ctx = sctx
	k.rules = ruleMatch{idx: idx, memo: &k.memo, verdicts: &k.verdicts}
	k.paths.init(sctx, pc, idx.readRules, &k.rec, &k.verdicts)
	k.decided = k.decidedBuf[:0]
	k.candChunk = k.candBuf[:0]
	return k
}

// checker is one decision: the stages of evaluate.go, run over the analysis of command, asking
// the parts below (see the package doc's "The checker's parts") and the knowledge base.
type checker struct {
	pc       *permission.Context
	command  string
	rec      recorder
	idx      *bashIndexes
	rules    ruleMatch
	verdicts verdicts
	paths    pathChecks
	memo     memo

	// candChunk is where candArray cuts each command's candidates from.
	candChunk []string
	// decided are top-level commands decided so far that a later twin may reuse; evals counts
	// the commands decided (not taken from a twin), for tests.
	decided    []*Command
	decidedBuf [8]*Command // decided's first array, allocated with the checker
	// What follows comes with the checker: the decision's stat cache and context, and the
	// first arrays of its parts and candidates, enough for a command line of a few commands. Nothing the decision returns points into them.
	statCtx  permission.StatCacheContext
	partsBuf [6]part
	candBuf  [6 * candsPerCommand]string
	// analysis is the decision's analysis; walk the chunks its walker cuts from, kept when
	// the checker is reused (the decision returned never points into them).
	analysis Analysis
	walk     cmdline.Chunks
	evals    int
}

// recorder is what a decision tells outside: the steps of the permission trace, when the
// context traces, and each command's effects, when Explain or Reads asked for them.
type recorder struct {
	ctx context.Context
	on  bool // the context traces
	// effects, when Explain asked for them, collects each command's effects; cur is the
	// command being decided (nil for redirections).
	effects map[*Command][]Effect
	cur     *Command
}

func (r *recorder) note(name, outcome, detail string) {
	if r.on {
		permission.Note(r.ctx, permission.Step{Name: name, Outcome: outcome, Detail: detail})
	}
}

func (r *recorder) noteRule(name, outcome, detail string, rule *permission.Rule) {
	if r.on {
		permission.Note(r.ctx, permission.Step{Name: name, Outcome: outcome, Detail: detail, Rule: rule})
	}
}

func (k *checker) run() permission.Decision {
	// The decision may hold the working directory open for its look-ups; it is over when
	// decide returns (nothing it started runs on).
	defer k.statCtx.Close()
	d := k.decide()
	if k.rec.on { // reasonText builds strings
		k.rec.note("bash: decision", d.Behavior.String(), reasonText(d))
	}
	return d
}

func (k *checker) decide() permission.Decision {
	trimmed := strings.TrimSpace(k.command)
	k.rec.note("bash: command", "", trimmed)
	// Rules on the whole string apply before anything else, so that even a command that does
	// not parse meets its exact deny rule.
	if r := k.idx.deny.match([]string{trimmed}, true); r != nil {
		return k.verdicts.ruleResult(vDeny, r, "the whole command").d
	}
	if r := k.idx.ask.match([]string{trimmed}, true); r != nil {
		return k.verdicts.ruleResult(vAskRule, r, "the whole command").d
	}
	if why := spoofing(k.command); why != "" {
		k.rec.note("bash: characters", "ask", why)
		return askDecision(fmt.Sprintf("Command contains %s, which can make it look different from what runs; it needs your explicit approval.", why),
			permission.ReasonSafetyCheck, why)
	}
	if trimmed == "" {
		return permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "empty command"}}
	}
	a, err := k.analyze()
	if err != nil {
		k.rec.note("bash: parse", "ask", err.Error())
		if k.idx.denyAsk {
			// What the parser refuses, bash may still run in part (let; rm -rf x runs the
			// rm): no deny or ask rule can be checked against it, and bypass mode or a
			// tool-wide allow rule must not settle it.
			return askDecision("Command contains malformed syntax that cannot be parsed ("+err.Error()+"), so your deny and ask rules cannot be checked against it; it needs your explicit approval.",
				permission.ReasonSafetyCheck, "parse error")
		}
		return askDecision("Command contains malformed syntax that cannot be parsed: "+err.Error(), permission.ReasonOther, "parse error")
	}
	k.memo.load(a)
	k.paths.findCd(a)

	parts := k.partsBuf[:0]
	var whole []result
	for _, c := range a.Commands {
		if c.Parent == nil {
			parts = append(parts, part{text: c.Text, res: k.eval(c)})
		}
	}
	for _, rd := range a.Redirects {
		if r, ok := k.paths.redirect(rd); ok {
			parts = append(parts, part{text: rd.Op + " " + rd.Target.Src, res: r})
		}
	}
	if k.paths.cd != nil && k.paths.cd.whole.v != vAllow {
		whole = append(whole, k.paths.cd.whole)
	}
	for _, is := range a.Issues {
		whole = append(whole, k.verdicts.unseen(is))
	}
	count := 0
	for _, c := range a.Commands {
		if !c.Speculative {
			count++
		}
	}
	switch {
	case a.Truncated:
		whole = append(whole, result{v: vAsk, d: askDecision("This command needs approval: it is too large or too deeply nested to analyse.", permission.ReasonOther, "analysis truncated")})
	case len(k.command) > MaxCommandLength:
		whole = append(whole, result{v: vAsk, d: askDecision(fmt.Sprintf("Command is too long to check safely (%d characters; the limit is %d).", len(k.command), MaxCommandLength), permission.ReasonOther, "command too long")})
	case count > MaxSubcommands:
		whole = append(whole, result{v: vAsk, d: askDecision(fmt.Sprintf("Command has too many subcommands to check safely (%d; the limit is %d).", count, MaxSubcommands), permission.ReasonOther, "too many subcommands")})
	}
	dmg := damage(a, parts, &k.paths)
	if r, ok := damageResult(&k.rec, dmg); ok {
		whole = append(whole, r)
	}
	d := k.merge(trimmed, parts, whole)
	d.Damage = dmg
	return d
}

// analyze is Analyze into the checker's own analysis and chunks.
func (k *checker) analyze() (*Analysis, error) {
	if err := analyzeWith(&k.analysis, k.command, &k.walk); err != nil {
		return nil, err
	}
	return &k.analysis, nil
}

type part struct {
	text string
	res  result
}

// merge turns the parts' verdicts into one decision: the worst verdict wins, and a part that
// needs a bypass-immune ask passes its reason on even when other parts ask too.
func (k *checker) merge(trimmed string, parts []part, whole []result) permission.Decision {
	worst := allowed
	for _, p := range parts {
		worst = worse(worst, p.res)
	}
	for _, w := range whole {
		worst = worse(worst, w)
	}
	switch worst.v {
	case vDeny, vSafety, vAskRule:
		return worst.d
	case vAllow:
		if len(parts) == 1 && parts[0].res.d.Reason != nil {
			return parts[0].res.d
		}
		return permission.Decision{Behavior: permission.Allow, Reason: k.verdicts.reason(permission.Reason{Type: permission.ReasonSubcommandResults,
			Detail: "every part of the command is allowed", Subresults: subresults(parts)})}
	}
	// What remains asks; an exact allow rule for the whole command settles what the analysis
	// could not see or what no rule allowed, but not a path outside the working directories.
	if worst.v <= vUnsure {
		if r := k.idx.allow.match([]string{trimmed}, false); r != nil {
			return k.verdicts.ruleResult(vAllow, r, "the whole command").d
		}
	}
	var notAllowed []part
	for _, p := range parts {
		if p.res.v != vAllow {
			notAllowed = append(notAllowed, p)
		}
	}
	var suggest []string
	for _, p := range notAllowed {
		for _, s := range p.res.suggest {
			if !slices.Contains(suggest, s) && len(suggest) < maxSuggestions {
				suggest = append(suggest, s)
			}
		}
	}
	var d permission.Decision
	if len(whole) == 0 && len(notAllowed) == 1 {
		d = notAllowed[0].res.d
		if notAllowed[0].res.v == vNeeds {
			d = permission.Decision{Behavior: permission.Passthrough, Message: permission.RequestMessage("Bash"),
				Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "no rule allows " + notAllowed[0].text}}
		}
	} else {
		behavior := permission.Passthrough
		msg := permission.RequestMessage("Bash")
		for _, w := range whole {
			if w.v >= vUnsure {
				behavior, msg = permission.Ask, w.d.Message
				break
			}
		}
		if behavior == permission.Passthrough {
			for _, p := range notAllowed {
				if p.res.v >= vUnsure {
					behavior, msg = permission.Ask, p.res.d.Message
					break
				}
			}
		}
		d = permission.Decision{Behavior: behavior, Message: msg,
			Reason: &permission.Reason{Type: permission.ReasonSubcommandResults, Subresults: subresults(parts)}}
		if worst.v >= vUnsure && len(whole) > 0 {
			d.Reason.Detail = whole[0].d.Message
		}
	}
	if len(suggest) > 0 {
		rules := make([]permission.RuleValue, len(suggest))
		for i, s := range suggest {
			rules[i] = permission.RuleValue{Tool: "Bash", Content: s}
		}
		d.Suggestions = []permission.Update{{Type: permission.AddRules, Destination: permission.SourceLocal,
			Behavior: permission.Allow, Rules: rules}}
	}
	return d
}

func subresults(parts []part) []permission.SubResult {
	out := make([]permission.SubResult, len(parts))
	for i, p := range parts {
		d := p.res.d
		if p.res.v == vNeeds {
			d = permission.Decision{Behavior: permission.Passthrough, Message: permission.RequestMessage("Bash")}
		} else if p.res.v == vAllow && d.Behavior != permission.Allow {
			d.Behavior = permission.Allow
		}
		out[i] = permission.SubResult{Command: p.text, Decision: d}
	}
	return out
}

// memo is what a decision has found about each command of its analysis: the commands each
// runs, its verdict and its normal form. A command's slot is at its index; a command from
// outside the analysis (there are none today, but a slot must never hold another command's
// verdict) is kept in a map.
type memo struct {
	a        *Analysis
	children map[*Command][]*Command
	// slots hold the verdicts of the analysis's commands, by index; results those of any
	// other command (see result).
	slots   []resultSlot
	results map[*Command]result
	// norms caches each command's normal form for deny and ask rule matching.
	norms    map[*Command]normForm
	slotsBuf [6]resultSlot // slots' first array, allocated with the checker
}

// resultSlot is what a decision keeps for one command of its analysis: its verdict and, once
// computed, its normal form.
type resultSlot struct {
	r      result
	ok     bool
	norm   normForm
	normed bool
}

// load readies m, a zero memo, for the commands of a.
func (m *memo) load(a *Analysis) {
	m.a = a
	// One slice for every command's verdict: a map of them was a good part of a decision's
	// allocations and lookups.
	if len(a.Commands) <= len(m.slotsBuf) {
		m.slots = m.slotsBuf[:len(a.Commands)]
	} else {
		m.slots = make([]resultSlot, len(a.Commands))
	}
	for _, c := range a.Commands {
		if c.Parent != nil {
			if m.children == nil {
				m.children = map[*Command][]*Command{}
			}
			m.children[c.Parent] = append(m.children[c.Parent], c)
		}
	}
}

// slot returns c's slot, or nil for a command outside the analysis.
func (m *memo) slot(c *Command) *resultSlot {
	if c != nil && m.a != nil && c.Index < len(m.slots) && m.a.Commands[c.Index] == c {
		return &m.slots[c.Index]
	}
	return nil
}

// result returns the verdict already reached for c. A command of the analysis has its slot;
// any other (there are none today, but a slot must never hold another command's verdict) is
// looked up in a map.
func (m *memo) result(c *Command) (result, bool) {
	if s := m.slot(c); s != nil {
		return s.r, s.ok
	}
	r, ok := m.results[c]
	return r, ok
}

// setResult records the verdict for c.
func (m *memo) setResult(c *Command, r result) {
	if s := m.slot(c); s != nil {
		s.r, s.ok = r, true
		return
	}
	if m.results == nil {
		m.results = map[*Command]result{}
	}
	m.results[c] = r
}
