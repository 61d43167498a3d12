package bashrules

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reinsdev/reins/permission"
)

// verdict orders what a part of a command needs, from nothing to a denial.
type verdict uint8

const (
	vAllow   verdict = iota
	vNeeds           // nothing allows it: the person may
	vUnsure          // the analysis cannot see what it does: only an exact rule or the person may allow it
	vAsk             // a path or directory change needs the person's approval
	vAskRule         // an ask rule matched: bypass-immune
	vSafety          // a safety check: bypass-immune
	vDeny
)

var verdictNames = [...]string{"allow", "needs approval", "unsure", "ask", "ask (rule)", "ask (safety check)", "deny"}

func (v verdict) String() string { return verdictNames[v] }

// result is the verdict for one command, redirect or check.
type result struct {
	v verdict
	// d is the decision to surface for vUnsure and worse, or the allow reason.
	d permission.Decision
	// suggest are rule contents that would allow a vNeeds command.
	suggest []string
}

func worse(a, b result) result {
	if b.v > a.v {
		return b
	}
	return a
}

var allowed = result{v: vAllow}

// Check decides a Bash command for the permission engine: it is the Bash tool's
// CheckPermissions. It returns Deny when a deny rule (or a Read/Edit deny for a path the command
// touches) forbids any part; Ask with a ReasonSafetyCheck or ask-rule reason for the asks nothing
// may bypass; Ask for paths outside the working directories and for what the analysis cannot
// see; Passthrough when nothing allows some part; Allow only when every part is allowed.
func Check(ctx context.Context, pc *permission.Context, command string) permission.Decision {
	idx := indexesFor(pc)
	k := &checker{ctx: ctx, pc: pc, command: command, tracing: permission.Tracing(ctx),
		deny: idx.deny, ask: idx.ask, allow: idx.allow,
		results: map[*Command]result{}}
	k.readRules = len(pc.ContentRules(permission.Deny, "Read")) > 0 || len(pc.ContentRules(permission.Ask, "Read")) > 0
	d := k.run()
	k.note("bash: decision", d.Behavior.String(), reasonText(d))
	return d
}

type checker struct {
	ctx       context.Context
	pc        *permission.Context
	command   string
	tracing   bool
	deny      *ruleSet
	ask       *ruleSet
	allow     *ruleSet
	readRules bool

	a        *Analysis
	orig     *permission.Context // the session's context with the original working directory
	children map[*Command][]*Command
	results  map[*Command]result
	cd       *cdState
}

func (k *checker) note(name, outcome, detail string) {
	if k.tracing {
		permission.Note(k.ctx, permission.Step{Name: name, Outcome: outcome, Detail: detail})
	}
}

func (k *checker) noteRule(name, outcome, detail string, r *permission.Rule) {
	if k.tracing {
		permission.Note(k.ctx, permission.Step{Name: name, Outcome: outcome, Detail: detail, Rule: r})
	}
}

func reasonText(d permission.Decision) string {
	if d.Reason != nil {
		return d.Reason.String()
	}
	return d.Message
}

func (k *checker) deniedMessage() string {
	return fmt.Sprintf("Permission to use Bash with command %s has been denied.", k.command)
}

func askDecision(msg string, rt permission.ReasonType, detail string) permission.Decision {
	return permission.Decision{Behavior: permission.Ask, Message: msg, Reason: &permission.Reason{Type: rt, Detail: detail}}
}

func (k *checker) ruleResult(v verdict, r *permission.Rule, what string) result {
	switch v {
	case vDeny:
		k.noteRule("bash: deny rule", "deny", what, r)
		return result{v: vDeny, d: permission.Decision{Behavior: permission.Deny, Message: k.deniedMessage(),
			Reason: &permission.Reason{Type: permission.ReasonRule, Rule: r}}}
	case vAskRule:
		k.noteRule("bash: ask rule", "ask", what, r)
		return result{v: vAskRule, d: permission.Decision{Behavior: permission.Ask, Message: permission.RequestMessage("Bash"),
			Reason: &permission.Reason{Type: permission.ReasonRule, Rule: r}}}
	}
	k.noteRule("bash: allow rule", "allow", what, r)
	return result{v: vAllow, d: permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonRule, Rule: r}}}
}

func (k *checker) unsure(why string) result {
	return result{v: vUnsure, d: askDecision(
		fmt.Sprintf("This command needs approval: %s.", why), permission.ReasonOther, why)}
}

func (k *checker) run() permission.Decision {
	trimmed := strings.TrimSpace(k.command)
	k.note("bash: command", "", trimmed)
	// Rules on the whole string apply before anything else, so that even a command that does
	// not parse meets its exact deny rule.
	if r := k.deny.match([]string{trimmed}, true); r != nil {
		return k.ruleResult(vDeny, r, "the whole command").d
	}
	if r := k.ask.match([]string{trimmed}, true); r != nil {
		return k.ruleResult(vAskRule, r, "the whole command").d
	}
	if why := spoofing(k.command); why != "" {
		k.note("bash: characters", "ask", why)
		return askDecision(fmt.Sprintf("Command contains %s, which can make it look different from what runs; it needs your explicit approval.", why),
			permission.ReasonSafetyCheck, why)
	}
	if trimmed == "" {
		return permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "empty command"}}
	}
	a, err := Analyze(k.command)
	if err != nil {
		k.note("bash: parse", "ask", err.Error())
		return askDecision("Command contains malformed syntax that cannot be parsed: "+err.Error(), permission.ReasonOther, "parse error")
	}
	k.a = a
	k.children = map[*Command][]*Command{}
	for _, c := range a.Commands {
		if c.Parent != nil {
			k.children[c.Parent] = append(k.children[c.Parent], c)
		}
	}
	k.findCd()

	var parts []part
	var whole []result
	for _, c := range a.Commands {
		if c.Parent == nil {
			parts = append(parts, part{text: c.Text, res: k.eval(c)})
		}
	}
	for _, rd := range a.Redirects {
		if r, ok := k.redirect(rd); ok {
			parts = append(parts, part{text: rd.Op + " " + rd.Target.Src, res: r})
		}
	}
	if k.cd != nil && k.cd.whole.v != vAllow {
		whole = append(whole, k.cd.whole)
	}
	for _, is := range a.Issues {
		whole = append(whole, k.unsure(is))
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
	return k.merge(trimmed, parts, whole)
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
		return permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonSubcommandResults,
			Detail: "every part of the command is allowed", Subresults: subresults(parts)}}
	}
	// What remains asks; an exact allow rule for the whole command settles what the analysis
	// could not see or what no rule allowed, but not a path outside the working directories.
	if worst.v <= vUnsure {
		if r := k.allow.match([]string{trimmed}, false); r != nil {
			return k.ruleResult(vAllow, r, "the whole command").d
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

const maxSuggestions = 5

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

// eval decides one command, its children first.
func (k *checker) eval(c *Command) result {
	if r, ok := k.results[c]; ok {
		return r
	}
	r := k.evalCommand(c)
	k.results[c] = r
	if k.tracing {
		detail := c.Text
		if c.Via != "" {
			detail += " (run by " + c.Via + ")"
		}
		if c.Nested != "" {
			detail += " [in " + c.Nested + "]"
		}
		if r.v != vAllow && r.d.Message != "" {
			detail += ": " + r.d.Message
		} else if r.d.Reason != nil {
			detail += ": " + r.d.Reason.String()
		}
		k.note("bash: "+c.Kind.String(), r.v.String(), detail)
	}
	return r
}

func (k *checker) evalCommand(c *Command) result {
	cands := candidates(c)
	if r := k.deny.match(cands.deny, true); r != nil {
		return k.ruleResult(vDeny, r, c.Text)
	}
	if r := k.ask.match(cands.deny, true); r != nil {
		return k.ruleResult(vAskRule, r, c.Text)
	}
	kids := k.children[c]
	if c.Speculative {
		worst := allowed
		for _, ch := range kids {
			if r := k.eval(ch); r.v == vDeny || r.v == vAskRule {
				worst = worse(worst, r)
			}
		}
		return worst
	}
	worst := allowed
	kidsAllowed, realKids := true, 0
	var kidSuggest []string
	kidUnsure := allowed
	for _, ch := range kids {
		r := k.eval(ch)
		if ch.Speculative {
			if r.v == vDeny || r.v == vAskRule {
				if strings.HasSuffix(ch.Via, " code") {
					why := fmt.Sprintf("inline code of %s holds %q, which a %s rule covers", firstWord(c), ch.Text, map[verdict]string{vDeny: "deny", vAskRule: "ask"}[r.v])
					r = result{v: vSafety, d: askDecision("This command needs approval: "+why+".", permission.ReasonSafetyCheck, why)}
				}
				worst = worse(worst, r)
			}
			continue
		}
		realKids++
		if r.v != vAllow {
			kidsAllowed = false
			kidSuggest = append(kidSuggest, r.suggest...)
			if r.v == vUnsure && kidUnsure.v == vAllow {
				kidUnsure = r
			}
		}
		if r.v >= vAsk {
			worst = worse(worst, r)
		}
	}
	po := k.paths(c)
	worst = worse(worst, po.res)
	cdRes, isCd := k.cd.each[c]
	if isCd {
		worst = worse(worst, cdRes)
	}
	if worst.v >= vAsk {
		return worst
	}
	name, trusted := "", false
	if len(c.Argv) > 0 {
		name, trusted = commandName(c.Argv[0])
	}
	if r := k.allow.match(cands.allowExact, false); r != nil {
		return k.ruleResult(vAllow, r, c.Text)
	}
	known := fullyKnown(c)
	if known {
		if r := k.allow.match(cands.allowLoose, true); r != nil && single(cands, r) {
			return k.ruleResult(vAllow, r, c.Text)
		}
	}
	if issue := subscriptIssue(name, c); issue != "" {
		c.Issues = append(c.Issues, issue)
	}
	if c.Transparent && realKids > 0 && len(c.Issues) == 0 && safeAssigns(c.Assigns) {
		if kidsAllowed {
			return result{v: vAllow, d: allowDecision(permission.ReasonOther, "every command "+name+" runs is allowed")}
		}
		if kidUnsure.v != vAllow {
			return kidUnsure
		}
		return result{v: vNeeds, suggest: kidSuggest}
	}
	if len(c.Issues) > 0 {
		return k.unsure(c.Issues[0])
	}
	switch c.Kind {
	case KindFuncCall:
		return result{v: vAllow, d: allowDecision(permission.ReasonOther, "calls a function whose body is checked where it is defined")}
	case KindArith, KindTest:
		return result{v: vAllow, d: allowDecision(permission.ReasonOther, c.Kind.String()+" runs nothing")}
	case KindAssign, KindDecl:
		if why := unsafeAssignment(c); why != "" {
			return result{v: vNeeds}
		}
		return result{v: vAllow, d: allowDecision(permission.ReasonOther, "sets shell variables only")}
	}
	if isCd {
		return cdRes
	}
	safeEnv := safeAssigns(c.Assigns)
	if known && trusted && safeEnv && len(po.issues) == 0 && !po.writes && !c.OtherDir && !k.bareGit(name, c) {
		if ro, ok := readOnlyFor(name); ok {
			if why := ro(c.Argv[1:]); why == "" {
				return result{v: vAllow, d: allowDecision(permission.ReasonOther, name+" only reads")}
			} else {
				k.note("bash: not read-only", "", c.Text+": "+why)
			}
		}
	}
	if k.pc.Mode() == permission.ModeAcceptEdits && known && trusted && safeEnv && len(po.issues) == 0 && !po.needGrant && acceptEditsCommands[name] {
		if (name == "mv" || name == "cp") && hasFlags(c.Argv[1:]) {
			k.note("bash: acceptEdits", "skip", c.Text+": mv and cp with options need approval")
		} else {
			return result{v: vAllow, d: permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonMode, Mode: permission.ModeAcceptEdits}}}
		}
	}
	if len(po.issues) > 0 {
		return k.unsure(po.issues[0])
	}
	if !known {
		return k.unsure(opaqueWhy(c))
	}
	return result{v: vNeeds, suggest: suggestion(c)}
}

// opaqueWhy says which word of a command is not known.
func opaqueWhy(c *Command) string {
	for _, w := range c.Argv {
		switch {
		case w.Placeholder:
			return fmt.Sprintf("%s is filled in when it runs", w.Src)
		case !w.Known:
			return fmt.Sprintf("%s contains %s, whose value is only known when it runs", w.Src, w.Why)
		}
	}
	for _, a := range c.Assigns {
		if !a.Value.Known {
			return fmt.Sprintf("%s assigns a value only known when it runs (%s)", a.Src, a.Value.Why)
		}
	}
	if c.ExtraArgs {
		return "xargs adds arguments read from its input"
	}
	if c.Argv == nil {
		return "brace expansion too large to follow"
	}
	return "it is not fully known"
}

func firstWord(c *Command) string {
	if len(c.Argv) > 0 {
		return c.Argv[0].Src
	}
	return ""
}

func allowDecision(t permission.ReasonType, detail string) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: t, Detail: detail}}
}

// acceptEditsCommands are allowed in acceptEdits mode once their paths pass the write check.
var acceptEditsCommands = map[string]bool{"mkdir": true, "touch": true, "rm": true, "rmdir": true, "mv": true, "cp": true, "sed": true}

func hasFlags(args []Word) bool {
	for _, a := range args {
		if a.Value == "--" {
			return true
		}
		if strings.HasPrefix(a.Value, "-") && len(a.Value) > 1 {
			return true
		}
	}
	return false
}

// fullyKnown reports whether every word of a command is known, so that prefix and wildcard
// rules and the read-only set may judge it.
func fullyKnown(c *Command) bool {
	if c.Argv == nil || c.ExtraArgs || len(c.Issues) > 0 {
		return false
	}
	for _, w := range c.Argv {
		if !w.Known || w.Placeholder {
			return false
		}
	}
	for _, a := range c.Assigns {
		if !a.Value.Known {
			return false
		}
	}
	return true
}

// subscriptBuiltins evaluate array subscripts in the names they are given, which runs any
// command substitution in them (printf -v 'a[$(cmd)]').
var subscriptBuiltins = map[string]bool{"printf": true, "read": true, "unset": true, "mapfile": true, "readarray": true,
	"wait": true, "getopts": true, "test": true, "[": true, "let": true, "export": true, "declare": true, "local": true,
	"typeset": true, "readonly": true}

func subscriptIssue(name string, c *Command) string {
	if !subscriptBuiltins[name] {
		return ""
	}
	for _, a := range c.Argv[1:] {
		if a.Known && strings.ContainsRune(a.Value, '[') && strings.ContainsAny(a.Value, "$`") {
			return name + " evaluates an array subscript that can run commands"
		}
	}
	return ""
}

// safeEnvVars may prefix a command without changing what it is allowed as (Claude Code's list).
var safeEnvVars = map[string]bool{"GOEXPERIMENT": true, "GOOS": true, "GOARCH": true, "CGO_ENABLED": true, "GO111MODULE": true,
	"RUST_BACKTRACE": true, "RUST_LOG": true, "NODE_ENV": true, "PYTHONUNBUFFERED": true, "PYTHONDONTWRITEBYTECODE": true,
	"PYTEST_DISABLE_PLUGIN_AUTOLOAD": true, "PYTEST_DEBUG": true, "ANTHROPIC_API_KEY": true, "LANG": true, "LANGUAGE": true,
	"LC_ALL": true, "LC_CTYPE": true, "LC_TIME": true, "CHARSET": true, "TERM": true, "COLORTERM": true, "NO_COLOR": true,
	"FORCE_COLOR": true, "TZ": true, "LS_COLORS": true, "LSCOLORS": true, "GREP_COLOR": true, "GREP_COLORS": true,
	"GCC_COLORS": true, "TIME_STYLE": true, "BLOCK_SIZE": true, "BLOCKSIZE": true}

var safeValueRE = regexp.MustCompile(`^[A-Za-z0-9_./:@%+,=-]*$`)

func safeAssigns(as []Assignment) bool {
	for _, a := range as {
		if !safeEnvVars[a.Name] || a.Indexed || a.Array || !a.Value.Known || a.Value.Src != a.Value.Value || !safeValueRE.MatchString(a.Value.Value) {
			return false
		}
	}
	return true
}

var shellVarRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// unsafeAssignment says why a statement of assignments (or declare/export) may change how
// later commands run: environment-style names (PATH, LD_PRELOAD, GIT_*), proxies, integer and
// nameref attributes.
func unsafeAssignment(c *Command) string {
	if c.Kind == KindDecl {
		switch c.Argv[0].Value {
		case "export", "local", "declare", "typeset", "readonly":
		default:
			return c.Argv[0].Value + " is not a plain declaration"
		}
		for _, w := range c.Argv[1:] {
			if !w.Known {
				return "a declaration word is expanded at run time"
			}
			if strings.HasPrefix(w.Value, "-") || strings.HasPrefix(w.Value, "+") {
				if strings.Trim(w.Value[1:], "xrgaAfFpltu") != "" {
					return "declaration option " + w.Value + " is not known to be harmless"
				}
			}
		}
	}
	for _, a := range c.Assigns {
		if a.Name == "" {
			continue
		}
		if safeEnvVars[a.Name] {
			continue
		}
		if !shellVarRE.MatchString(a.Name) || strings.HasSuffix(a.Name, "_proxy") {
			return "assigns " + a.Name + ", which can change how other commands run"
		}
	}
	return ""
}

// candidates are the strings a command's rules are matched against.
type candSet struct {
	deny       []string // every form, through all assignments
	allowExact []string // as written, and without safe assignments
	allowLoose []string // for prefix and wildcard rules: only when every word is known
}

func candidates(c *Command) candSet {
	var cs candSet
	add := func(list *[]string, s string) {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
	raw := c.Text
	add(&cs.deny, raw)
	add(&cs.allowExact, raw)
	if c.Kind != KindCall && c.Kind != KindFuncCall {
		if c.Kind == KindDecl {
			add(&cs.deny, joinValues(c.Argv, false))
		}
		cs.allowLoose = cs.allowExact
		return cs
	}
	rawWords := make([]string, len(c.Words))
	for i, w := range c.Words {
		rawWords[i] = w.Src
	}
	noAssign := strings.Join(rawWords, " ")
	add(&cs.deny, noAssign)
	plain := joinValues(c.Argv, false)
	quoted := joinValues(c.Argv, true)
	add(&cs.deny, plain)
	add(&cs.deny, quoted)
	if len(c.Argv) > 0 && c.Argv[0].Known && strings.ContainsRune(c.Argv[0].Value, '/') {
		base := c.Argv[0]
		base.Value = path.Base(base.Value)
		add(&cs.deny, joinValues(append([]Word{base}, c.Argv[1:]...), false))
	}
	if n, _ := c.Name(); n == "git" {
		if global, sub, rest, _ := gitGlobal(c.Argv[1:]); len(global) > 0 && sub != "" {
			add(&cs.deny, joinValues(append([]Word{c.Argv[0], {Value: sub, Known: true}}, rest...), false))
		}
	}
	if len(c.Assigns) > 0 {
		var as []string
		for _, a := range c.Assigns {
			as = append(as, a.Src)
		}
		add(&cs.allowExact, strings.Join(as, " ")+" "+quoted)
	} else {
		add(&cs.allowExact, quoted)
	}
	if safeAssigns(c.Assigns) {
		add(&cs.allowExact, noAssign)
		add(&cs.allowExact, quoted)
	}
	cs.allowLoose = cs.allowExact
	return cs
}

func joinValues(ws []Word, quote bool) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case !w.Known:
			b.WriteString(w.Src)
		case quote:
			b.WriteString(quoteWord(w.Value))
		default:
			b.WriteString(w.Value)
		}
	}
	return b.String()
}

// single reports whether the candidate a prefix or wildcard allow rule matched is one simple
// command: allow rules must never match a string that holds several.
func single(cs candSet, r *permission.Rule) bool {
	for _, s := range cs.allowLoose {
		if !MatchRule(r.Value.Content, s) {
			continue
		}
		f, err := parse(s)
		if err != nil || len(f.Stmts) != 1 {
			continue
		}
		a, err := Analyze(s)
		if err != nil || len(a.Redirects) != 0 || len(a.Issues) != 0 {
			continue
		}
		var top []*Command
		for _, c := range a.Commands {
			if c.Parent == nil {
				top = append(top, c)
			}
		}
		if len(top) == 1 && (top[0].Kind == KindCall || top[0].Kind == KindDecl) && fullyKnown(top[0]) {
			return true
		}
	}
	return false
}

var subcommandRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// noSuggest are shells, wrappers and interpreters: a rule for them would allow anything.
var noSuggest = map[string]bool{"sh": true, "bash": true, "zsh": true, "fish": true, "csh": true, "tcsh": true, "ksh": true,
	"dash": true, "cmd": true, "powershell": true, "pwsh": true, "env": true, "xargs": true, "nice": true, "stdbuf": true,
	"nohup": true, "timeout": true, "time": true, "sudo": true, "doas": true, "pkexec": true, "eval": true, "exec": true,
	"source": true, ".": true, "command": true, "builtin": true, "watch": true, "ssh": true, "su": true, "find": false}

// suggestion proposes an allow rule for a command nothing allowed: "cmd sub:*" when the second
// word looks like a subcommand, the command name alone for a bare command, else the exact
// command.
func suggestion(c *Command) []string {
	if c.Kind != KindCall || !fullyKnown(c) || len(c.Argv) == 0 {
		return nil
	}
	name, _ := commandName(c.Argv[0])
	if noSuggest[name] || shells[name] || isInterpreter(name) || wrappers[name].peel != nil || wrappers[name].safe {
		return nil
	}
	if _, ok := wrappers[name]; ok {
		return nil
	}
	text := c.Text
	if safeAssigns(c.Assigns) {
		words := make([]string, len(c.Words))
		for i, w := range c.Words {
			words[i] = w.Src
		}
		text = strings.Join(words, " ")
	}
	if first, _, multi := strings.Cut(text, "\n"); multi {
		return []string{strings.TrimSpace(first) + ":*"}
	}
	switch {
	case len(c.Argv) >= 2 && subcommandRE.MatchString(c.Argv[1].Value) && !needsQuoting(c.Argv[0].Value) && !runsNamedProgram(name, c.Argv):
		return []string{c.Argv[0].Value + " " + c.Argv[1].Value + ":*"}
	case len(c.Argv) == 1:
		return []string{c.Argv[0].Value}
	}
	return []string{text}
}

// spoofing reports characters that make a command display differently from what runs:
// control characters, bidirectional overrides, invisible and non-ASCII space characters.
func spoofing(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return "bytes that are not valid UTF-8"
			}
		case r == 0:
			return "a NUL byte"
		case (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return fmt.Sprintf("a control character (U+%04X)", r)
		case r == '\u200e' || r == '\u200f' || r == '\u061c' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069'):
			return fmt.Sprintf("a bidirectional text control (U+%04X)", r)
		case (r >= '\u200b' && r <= '\u200d') || (r >= '\u2060' && r <= '\u2064') || r == '\ufeff' || r == '\u00ad' || r == '\u180e' || r == '\u3164' || r == '\u115f' || r == '\u1160':
			return fmt.Sprintf("an invisible character (U+%04X)", r)
		case r == '\u00a0' || r == '\u1680' || (r >= '\u2000' && r <= '\u200a') || r == '\u2028' || r == '\u2029' || r == '\u202f' || r == '\u205f' || r == '\u3000':
			return fmt.Sprintf("a non-ASCII space (U+%04X)", r)
		}
	}
	return ""
}

// cdState is the one directory change of a command line.
type cdState struct {
	each  map[*Command]result // the verdict for every cd, pushd and popd
	cmd   *Command            // the directory change in effect, if any
	abs   string
	pc    *permission.Context
	main  bool // runs in the main shell, so that later commands run in the new directory
	whole result
}

// findCd looks at cd, pushd and popd. One cd into the working directories is followed:
// paths after it resolve against the new directory. Several, one outside, or one combined
// with git or an output redirection ask.
func (k *checker) findCd() {
	st := &cdState{each: map[*Command]result{}}
	var changes []*Command
	bad := allowed
	for _, c := range k.a.Commands {
		if c.Speculative || c.Kind != KindCall || len(c.Argv) == 0 {
			continue
		}
		name, _ := commandName(c.Argv[0])
		switch name {
		case "popd":
			st.each[c] = k.cdAsk("popd changes to a directory from the directory stack")
			continue
		case "cd", "pushd", "chdir":
		default:
			continue
		}
		args := c.Argv[1:]
		for len(args) > 0 && args[0].Known && (args[0].Value == "-L" || args[0].Value == "-P" || args[0].Value == "-e" || args[0].Value == "-@" || args[0].Value == "--") {
			args = args[1:]
		}
		var abs string
		switch {
		case len(args) == 0:
			abs = k.pc.Home()
		case len(args) > 1:
			st.each[c] = k.cdAsk("cd with several arguments")
			continue
		case !args[0].IsPathLike() || args[0].Value == "-" || c.OtherDir:
			st.each[c] = k.cdAsk("cd to a directory the analysis cannot resolve (" + args[0].Src + ")")
			continue
		default:
			p := args[0].Value
			if strings.HasPrefix(p, "~") && args[0].Tilde != TildeHome {
				p = "./" + p
			}
			var err error
			if abs, err = k.pc.ResolvePath(p); err != nil {
				st.each[c] = k.cdAsk("cd target: " + err.Error())
				continue
			}
		}
		if abs == k.pc.Cwd() {
			st.each[c] = result{v: vAllow, d: allowDecision(permission.ReasonWorkingDir, "cd to the current directory changes nothing")}
			continue
		}
		if abs == "" || !k.pc.InWorkingDirs(abs) {
			st.each[c] = (result{v: vAsk, d: permission.Decision{Behavior: permission.Ask, BlockedPath: abs,
				Message: fmt.Sprintf("cd to '%s' needs approval: it is outside the working directories (%s).", abs, strings.Join(k.pc.WorkingDirs(), ", ")),
				Reason:  &permission.Reason{Type: permission.ReasonWorkingDir, Detail: "cd outside the working directories"}}})
			changes = append(changes, c)
			continue
		}
		if d := k.pc.CheckRead(k.ctx, abs); d.Behavior == permission.Deny {
			st.each[c] = result{v: vDeny, d: d}
			changes = append(changes, c)
			continue
		}
		st.each[c] = result{v: vAllow, d: allowDecision(permission.ReasonWorkingDir, "changes to a directory inside the working directories")}
		changes = append(changes, c)
		st.abs = abs
	}
	switch {
	case len(changes) > 1:
		bad = worse(bad, result{v: vAsk, d: askDecision("Multiple directory changes in one command require approval for clarity.", permission.ReasonOther, "several cd commands")})
	case len(changes) == 1 && st.abs != "":
		st.cmd = changes[0]
		st.pc = k.pc.WithCwd(st.abs)
		st.main = !st.cmd.subshell && !st.cmd.fn && !st.cmd.script
		for _, c := range k.a.Commands {
			if n, _ := c.Name(); n == "git" && !c.Speculative {
				bad = worse(bad, result{v: vAsk, d: askDecision("Compound commands with cd and git require approval to prevent bare repository attacks.", permission.ReasonOther, "cd and git")})
				break
			}
		}
		for _, rd := range k.a.Redirects {
			if (rd.Kind == RedirOut || rd.Kind == RedirInOut) && !exemptOutput(rd.Target) {
				bad = worse(bad, result{v: vAsk, d: askDecision("Commands that change directory and write through an output redirection require approval: the file's directory cannot be known for sure.", permission.ReasonOther, "cd and output redirection")})
				break
			}
		}
	}
	if bad.v != vAllow {
		k.note("bash: cd", bad.v.String(), bad.d.Message)
	}
	for c, r := range st.each {
		if r.v != vAllow {
			k.note("bash: cd", r.v.String(), c.Text+": "+r.d.Message)
		}
	}
	st.whole = bad
	k.cd = st
}

// cdAsk is the ask for a directory change the analysis cannot follow. It is never settled by
// an allow rule: every path after it would be resolved in the wrong directory.
func (k *checker) cdAsk(why string) result {
	return result{v: vAsk, d: askDecision(fmt.Sprintf("This command needs approval: %s.", why), permission.ReasonOther, why)}
}

// cwds returns the contexts a command's relative paths resolve in: the session's, the one
// after the cd, or both when the command may run in either.
func (k *checker) cwds(wh where) []*permission.Context {
	st := k.cd
	if st == nil || st.cmd == nil {
		return []*permission.Context{k.pc}
	}
	both := []*permission.Context{k.pc, st.pc}
	switch {
	case !st.main || wh.fn || st.cmd.loop:
		return both
	case slices.Contains(wh.guards, st.cmd):
		return []*permission.Context{st.pc}
	case wh.start > st.cmd.start:
		return both
	}
	return []*permission.Context{k.pc}
}

var exemptOutputs = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/fd/1": true, "/dev/fd/2": true}
var exemptInputs = map[string]bool{"/dev/null": true, "/dev/stdin": true, "/dev/zero": true, "/dev/urandom": true, "/dev/random": true, "/dev/tty": true, "/dev/fd/0": true}

func exemptOutput(w Word) bool { return w.Known && exemptOutputs[w.Value] }

// redirect checks a redirection: an output target is a write (granted only by acceptEdits or
// an Edit allow rule), an input is a read.
func (k *checker) redirect(rd *Redirect) (result, bool) {
	var acc access
	switch rd.Kind {
	case RedirOut, RedirInOut:
		if exemptOutput(rd.Target) {
			return allowed, false
		}
		acc = accWrite
	case RedirIn:
		if rd.Target.Known && exemptInputs[rd.Target.Value] {
			return allowed, false
		}
		acc = accRead
	default:
		return allowed, false
	}
	worst := allowed
	for _, pc := range k.cwds(rd.where) {
		o := k.use(pc, nil, pathUse{w: rd.Target, acc: acc}, "redirect")
		worst = worse(worst, o.res)
		if acc == accWrite && o.needGrant {
			worst = worse(worst, result{v: vAsk, d: o.grantAsk})
		}
	}
	return worst, true
}

// pathOutcome is what the path checks of one command found.
type pathOutcome struct {
	res       result // the worst ask or deny
	writes    bool   // the command writes or removes something
	needGrant bool   // a write inside the working directories is not granted by mode or rule
	grantAsk  permission.Decision
	issues    []string
}

func (o *pathOutcome) merge(p pathOutcome) {
	o.res = worse(o.res, p.res)
	o.writes = o.writes || p.writes
	if p.needGrant && !o.needGrant {
		o.needGrant, o.grantAsk = true, p.grantAsk
	}
	o.issues = append(o.issues, p.issues...)
}

// paths runs the path checks of one command.
func (k *checker) paths(c *Command) pathOutcome {
	var out pathOutcome
	if c.Kind != KindCall || len(c.Argv) == 0 {
		return out
	}
	name, _ := commandName(c.Argv[0])
	if name == "" {
		return out
	}
	var uses []pathUse
	if spec, ok := pathSpecs[name]; ok {
		pr := spec(c.Argv[1:])
		uses, out.issues = pr.uses, pr.issues
	} else if len(k.children[c]) == 0 && !isWrapperLike(name) {
		uses = probes(c.Argv[1:])
	}
	if c.hasPlaceholders() && len(c.Roots) == 0 && (k.readRules || removes(uses)) {
		// xargs fills these in at run time.
		for _, u := range uses {
			if u.w.Placeholder || !u.w.Known {
				out.merge(k.unknownPath(c, u))
			}
		}
	}
	if c.ExtraArgs {
		extra := pathUse{w: Word{Src: "(arguments from xargs input)", Why: "arguments read by xargs"}}
		if spec, ok := pathSpecs[name]; ok {
			// What the command does with one more operand is what it does with them all.
			pr := spec(append(slices.Clone(c.Argv[1:]), Word{Src: "ARG", Value: "ARG", Known: true, Placeholder: true}))
			for _, u := range pr.uses {
				if u.w.Placeholder {
					extra.acc = u.acc
					out.merge(k.unknownPath(c, extra))
				}
			}
		} else if k.readRules {
			extra.acc = accRead
			out.merge(k.unknownPath(c, extra))
		}
	}
	for _, u := range uses {
		if c.OtherDir {
			out.merge(pathOutcome{res: result{v: vAsk, d: askDecision(
				fmt.Sprintf("%s runs in another directory or root, so its path %s cannot be checked.", name, u.w.Src), permission.ReasonOther, "other directory")}})
			continue
		}
		if u.w.Placeholder && len(c.Roots) == 0 {
			continue // handled above
		}
		for _, pc := range k.cwds(c.where) {
			out.merge(k.use(pc, c, u, name))
		}
	}
	return out
}

// hasPlaceholders reports whether any word is filled in at run time.
func (c *Command) hasPlaceholders() bool {
	for _, w := range c.Argv {
		if w.Placeholder {
			return true
		}
	}
	return false
}

func removes(uses []pathUse) bool {
	for _, u := range uses {
		if u.acc == accRemove || u.acc == accRemoveUnder {
			return true
		}
	}
	return false
}

func isWrapperLike(name string) bool {
	_, w := wrappers[name]
	return w || name == "eval" || name == "trap" || name == "find" || name == "xargs"
}

// probes are the arguments of an unknown command that may name files: operands, option
// values and @file arguments. Only Read deny and ask rules are checked against them.
func probes(args []Word) []pathUse {
	var out []pathUse
	for _, a := range args {
		if !a.Known || len(a.Value) > 4096 || strings.ContainsRune(a.Value, '\n') || len(out) >= 64 {
			continue
		}
		v := a.Value
		switch {
		case strings.HasPrefix(v, "-"):
			_, val, ok := strings.Cut(v, "=")
			if !ok || val == "" {
				continue
			}
			v = val
		case strings.HasPrefix(v, "@") && len(v) > 1:
			v = v[1:]
		}
		w := subWord(a, v)
		out = append(out, pathUse{w: w, acc: accProbe})
	}
	return out
}

// unknownPath handles a path the analysis cannot know: removing it is a safety ask, writing
// it asks, reading it asks when Read rules could forbid it.
func (k *checker) unknownPath(c *Command, u pathUse) pathOutcome {
	why := u.w.Why
	if why == "" {
		why = "its value is only known when it runs"
	}
	switch u.acc {
	case accRemove, accRemoveUnder:
		msg := fmt.Sprintf("This command removes %s, whose target cannot be known before it runs (%s); it needs your explicit approval.", u.w.Src, why)
		return pathOutcome{writes: true, res: result{v: vSafety, d: askDecision(msg, permission.ReasonSafetyCheck, "removal of an unknown path")}}
	case accWrite:
		return pathOutcome{writes: true, res: result{v: vAsk, d: askDecision(
			fmt.Sprintf("This command writes to %s, which cannot be known before it runs (%s).", u.w.Src, why), permission.ReasonOther, "write to an unknown path")}}
	case accRead, accReadTree:
		if k.readRules {
			return pathOutcome{res: result{v: vAsk, d: askDecision(
				fmt.Sprintf("This command reads %s, which cannot be known before it runs (%s), and your Read rules may forbid it.", u.w.Src, why), permission.ReasonOther, "read of an unknown path")}}
		}
	}
	return pathOutcome{}
}

// use checks one path use in one working-directory context.
func (k *checker) use(pc *permission.Context, c *Command, u pathUse, what string) pathOutcome {
	w := u.w
	if w.Placeholder && c != nil && len(c.Roots) > 0 {
		var out pathOutcome
		acc := accReadTree
		switch u.acc {
		case accWrite, accRemove, accRemoveUnder:
			acc = accRemoveUnder
		case accProbe:
			acc = accProbe
		}
		for _, root := range c.Roots {
			out.merge(k.use(pc, nil, pathUse{w: root, acc: acc}, what+" {}"))
		}
		return out
	}
	switch {
	case !w.Known || w.Placeholder:
		if u.acc == accProbe || u.acc == accReadIfExists || u.acc == accRemoveIfExists {
			return pathOutcome{}
		}
		return k.unknownPath(c, u)
	case w.Tilde == TildeOther:
		if u.acc == accProbe {
			return pathOutcome{}
		}
		if u.acc == accRemove || u.acc == accRemoveUnder || u.acc == accRemoveIfExists {
			return k.unknownPath(c, pathUse{w: Word{Src: w.Src, Why: "another user's home or the directory stack"}, acc: accRemove})
		}
		return pathOutcome{writes: isWrite(u.acc), res: result{v: vAsk, d: askDecision(
			fmt.Sprintf("Path %s names another user's home or the directory stack, which cannot be checked.", w.Src), permission.ReasonOther, "~user path")}}
	case hasCombining(w.Value):
		return pathOutcome{writes: isWrite(u.acc), res: result{v: vAsk, d: askDecision(
			fmt.Sprintf("Path %s contains combining characters; the file system may treat it as another name.", w.Src), permission.ReasonOther, "combining characters in a path")}}
	}
	p := w.Value
	if strings.HasPrefix(p, "~") && w.Tilde != TildeHome {
		p = "./" + p // a quoted ~ is a literal directory name
	}
	if u.dir != nil && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
		if !u.dir.IsPathLike() {
			return k.unknownPath(c, pathUse{w: *u.dir, acc: u.acc})
		}
		p = filepath.Join(u.dir.Value, p)
		if strings.HasPrefix(u.dir.Value, "~") && u.dir.Tilde != TildeHome {
			p = "./" + p
		}
	}
	if w.Glob {
		return k.glob(pc, c, u, p, what)
	}
	abs, err := pc.ResolvePath(p)
	if err != nil {
		return pathOutcome{res: result{v: vAsk, d: askDecision(fmt.Sprintf("Path %s cannot be checked: %v.", w.Src, err), permission.ReasonOther, err.Error())}}
	}
	switch u.acc {
	case accProbe:
		if _, err := os.Lstat(abs); err != nil {
			// Not a file yet, but the command may create it: only a protected name counts.
			if strings.ContainsAny(w.Value, "./") {
				if o := k.writeOne(pc, abs); protectedAsk(o.res) {
					return pathOutcome{res: o.res}
				}
			}
			return pathOutcome{}
		}
	case accReadIfExists, accRemoveIfExists:
		if _, err := os.Lstat(abs); err != nil {
			return pathOutcome{}
		}
	}
	k.note("bash: path", u.acc.String(), fmt.Sprintf("%s %s (%s)", what, abs, w.Src))
	// The path is resolved against the directory the command runs in, but rules written
	// relative to the working directory ("./.env") are checked from the session's directory
	// too: after cd src, ../.env is still the file the rule names.
	var out pathOutcome
	for _, rc := range k.ruleContexts(pc) {
		out.merge(k.checkAbs(rc, c, u, w, abs))
	}
	return out
}

func (k *checker) ruleContexts(pc *permission.Context) []*permission.Context {
	out := []*permission.Context{pc}
	if pc != k.pc {
		out = append(out, k.pc)
	}
	// A session whose shell has moved away from where it started still has rules written
	// for the project's directory.
	if k.orig == nil && k.pc.Cwd() != k.pc.OriginalCwd() {
		k.orig = k.pc.WithCwd(k.pc.OriginalCwd())
	}
	if k.orig != nil && pc.Cwd() != k.orig.Cwd() {
		out = append(out, k.orig)
	}
	return out
}

func (k *checker) checkAbs(pc *permission.Context, c *Command, u pathUse, w Word, abs string) pathOutcome {
	switch u.acc {
	case accRead, accReadIfExists:
		return k.read(pc, abs)
	case accProbe:
		// An argument of a command the analysis does not know: a Read rule that forbids it
		// counts, and so does naming a protected file, which the command may write.
		o := k.read(pc, abs)
		if o.res.v == vDeny || o.res.v == vAskRule {
			return o
		}
		if w := k.writeOne(pc, abs); protectedAsk(w.res) {
			return pathOutcome{res: w.res}
		}
		return pathOutcome{}
	case accReadTree:
		o := k.read(pc, abs)
		if o.res.v == vAllow && k.readRules {
			o.merge(k.tree(pc, abs, u.noHidden))
		}
		return o
	case accRemove, accRemoveIfExists, accRemoveUnder:
		if why := k.dangerous(pc, w, abs, u.acc == accRemoveUnder); why != "" {
			return pathOutcome{writes: true, res: k.dangerResult(c, w, abs, why)}
		}
		return k.write(pc, abs, "")
	}
	return k.write(pc, abs, u.base)
}

func isWrite(a access) bool {
	return a == accWrite || a == accRemove || a == accRemoveUnder || a == accRemoveIfExists
}

func hasCombining(s string) bool {
	for _, r := range s {
		if r >= 0x300 && unicode.Is(unicode.Mn, r) {
			return true
		}
	}
	return false
}

func classify(d permission.Decision) verdict {
	switch d.Behavior {
	case permission.Allow:
		return vAllow
	case permission.Deny:
		return vDeny
	}
	if d.Reason != nil {
		switch {
		case d.Reason.Type == permission.ReasonSafetyCheck:
			return vSafety
		case d.Reason.Type == permission.ReasonRule && d.Reason.Rule != nil && d.Reason.Rule.Behavior == permission.Ask:
			return vAskRule
		}
	}
	return vAsk
}

func (k *checker) read(pc *permission.Context, abs string) pathOutcome {
	d := pc.CheckRead(k.ctx, abs)
	if v := classify(d); v != vAllow {
		return pathOutcome{res: result{v: v, d: d}}
	}
	return pathOutcome{}
}

// write runs the write check. A write inside the working directories that no mode or Edit rule
// grants is fine for a command an allow rule allows, but keeps it from being auto-allowed.
func (k *checker) write(pc *permission.Context, abs, base string) pathOutcome {
	out := k.writeOne(pc, abs)
	if base != "" && isDir(abs) {
		out.merge(k.writeOne(pc, filepath.Join(abs, base)))
	}
	return out
}

func (k *checker) writeOne(pc *permission.Context, abs string) pathOutcome {
	d := pc.CheckWrite(k.ctx, abs)
	v := classify(d)
	switch {
	case v == vAllow:
		return pathOutcome{writes: true}
	case v == vAsk && pc.InWorkingDirs(abs):
		return pathOutcome{writes: true, needGrant: true, grantAsk: d}
	}
	return pathOutcome{writes: true, res: result{v: v, d: d}}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// treeBudget is how many files below a directory are checked against Read rules before the
// check gives up and asks.
const treeBudget = 5000

// tree checks everything below a directory a command reads recursively against the Read deny
// and ask rules (grep -r KEY . must not read a denied .env).
func (k *checker) tree(pc *permission.Context, root string, noHidden bool) pathOutcome {
	if !isDir(root) {
		return pathOutcome{}
	}
	var out pathOutcome
	n := 0
	quiet := context.Background()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		if noHidden && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > treeBudget {
			out.res = worse(out.res, result{v: vAsk, d: askDecision(
				fmt.Sprintf("This command reads everything below %s, which holds too many files to check against your Read rules.", root), permission.ReasonOther, "tree too large")})
			return filepath.SkipAll
		}
		dec := pc.CheckRead(quiet, p)
		switch v := classify(dec); v {
		case vDeny, vAskRule:
			k.note("bash: path", v.String(), "below "+root+": "+p)
			out.res = worse(out.res, result{v: v, d: dec})
			if v == vDeny {
				return filepath.SkipAll
			}
		}
		return nil
	})
	return out
}

// glob checks a path with unquoted glob characters: reads check the pattern's base directory
// and every current match; writes ask; removals of * or dir/* are dangerous.
func (k *checker) glob(pc *permission.Context, c *Command, u pathUse, p, what string) pathOutcome {
	w := u.w
	switch u.acc {
	case accRemove, accRemoveUnder, accRemoveIfExists:
		if w.Value == "*" || strings.HasSuffix(w.Value, "/*") {
			return pathOutcome{writes: true, res: k.dangerResult(c, w, w.Value, "it removes everything in a directory")}
		}
		base, _ := pc.ResolvePath(globBase(p))
		if why := k.dangerous(pc, w, base, true); why != "" {
			return pathOutcome{writes: true, res: k.dangerResult(c, w, base, why)}
		}
		fallthrough
	case accWrite:
		return pathOutcome{writes: true, res: result{v: vAsk, d: askDecision(
			fmt.Sprintf("This command writes to %s, a pattern whose matches cannot be checked before it runs.", w.Src), permission.ReasonOther, "glob in a write target")}}
	}
	base := globBase(p)
	var out pathOutcome
	if u.acc != accProbe {
		baseAbs, err := pc.ResolvePath(base)
		if err != nil {
			return pathOutcome{res: k.unsure(err.Error())}
		}
		out.merge(k.read(pc, baseAbs))
	}
	if out.res.v != vAllow {
		return out // the pattern's directory already needs approval; no need to list it
	}
	pattern, err := pc.ResolvePath(p)
	if err != nil {
		return pathOutcome{res: k.unsure(err.Error())}
	}
	matches, err := boundedGlob(pattern, globBudget)
	switch {
	case err == errGlobTooLarge || len(matches) > 1000:
		return pathOutcome{res: result{v: vAsk, d: askDecision(fmt.Sprintf("The pattern %s matches too many files to check.", w.Src), permission.ReasonOther, "glob too large")}}
	case err != nil:
		return pathOutcome{res: k.unsure("a glob pattern that does not parse: " + w.Src)}
	}
	for _, m := range matches {
		mw := Word{Src: m, Value: m, Known: true}
		acc := u.acc
		if acc == accReadIfExists {
			acc = accRead
		}
		out.merge(k.use(pc, c, pathUse{w: mw, acc: acc}, what))
	}
	return out
}

// globBudget bounds the directory entries read to expand one pattern.
const globBudget = 20000

var errGlobTooLarge = errors.New("glob too large")

// boundedGlob expands an absolute pattern like filepath.Glob, but gives up after reading budget
// directory entries, so that /*/*/*/* cannot make a permission check walk the file system.
// Like bash without dotglob, a name starting with a dot is matched only by a pattern starting
// with a literal dot.
func boundedGlob(pattern string, budget int) ([]string, error) {
	parts := strings.Split(filepath.Clean(pattern), string(filepath.Separator))
	cands := []string{string(filepath.Separator)}
	for _, part := range parts {
		if part == "" {
			continue
		}
		if !strings.ContainsAny(part, "*?[\\") {
			for i := range cands {
				cands[i] = filepath.Join(cands[i], part)
			}
			continue
		}
		if _, err := filepath.Match(part, ""); err != nil {
			return nil, err
		}
		var next []string
		for _, dir := range cands {
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			if budget -= len(entries); budget < 0 {
				return nil, errGlobTooLarge
			}
			for _, e := range entries {
				// As in bash (without dotglob), a leading dot must be matched by a literal dot.
				if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(part, ".") {
					continue
				}
				if ok, _ := filepath.Match(part, e.Name()); ok {
					next = append(next, filepath.Join(dir, e.Name()))
				}
			}
		}
		cands = next
		if len(cands) == 0 {
			return nil, nil
		}
	}
	out := cands[:0]
	for _, c := range cands {
		if _, err := os.Lstat(c); err == nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// globBase is the directory part of a pattern before its first glob character.
func globBase(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p
	}
	dir := p[:i]
	j := strings.LastIndexByte(dir, '/')
	switch {
	case j < 0:
		return "."
	case j == 0:
		return "/"
	}
	return dir[:j]
}

// dangerous says why removing abs (or, with under, files below it) would be catastrophic: the
// root, a top-level system directory, the home directory, the working directories and any of
// their parents.
func (k *checker) dangerous(pc *permission.Context, w Word, abs string, under bool) string {
	if abs == "" {
		return ""
	}
	abs = filepath.Clean(abs)
	switch {
	case abs == "/":
		return "the file-system root"
	case filepath.Dir(abs) == "/":
		return "a top-level system directory"
	case pc.Home() != "" && strings.EqualFold(abs, filepath.Clean(pc.Home())):
		return "the home directory"
	}
	dirs := append([]string{pc.Cwd(), k.pc.Cwd(), pc.OriginalCwd()}, pc.WorkingDirs()...)
	for _, d := range dirs {
		d = filepath.Clean(d)
		if strings.EqualFold(abs, d) && !under {
			return "the working directory"
		}
		if strings.HasPrefix(strings.ToLower(d), strings.ToLower(abs)+"/") {
			return "a parent of the working directory"
		}
	}
	return ""
}

func (k *checker) dangerResult(c *Command, w Word, abs, why string) result {
	op := "rm"
	if c != nil && len(c.Argv) > 0 {
		op, _ = commandName(c.Argv[0])
	}
	msg := fmt.Sprintf("Dangerous %s operation detected: '%s'. It would remove %s; this needs your explicit approval and cannot be allowed by rules or modes.", op, w.Src, why)
	k.note("bash: dangerous removal", "ask", msg)
	return result{v: vSafety, d: permission.Decision{Behavior: permission.Ask, Message: msg, BlockedPath: abs,
		Reason: &permission.Reason{Type: permission.ReasonSafetyCheck, Detail: "dangerous removal of " + why}}}
}

// bareGit reports a git command that would run in what looks like a planted bare repository.
func (k *checker) bareGit(name string, c *Command) bool {
	if name != "git" {
		return false
	}
	for _, pc := range k.cwds(c.where) {
		if gitInBareRepo(pc.Cwd(), c.Argv[1:]) {
			k.note("bash: not read-only", "", c.Text+": runs in a directory that looks like a bare git repository")
			return true
		}
	}
	return false
}

// protectedAsk reports the write check's ask for a protected file (not for a suspicious path
// pattern such as ./..., which only matters for paths the command is known to use).
func protectedAsk(r result) bool {
	return r.v == vSafety && r.d.Reason != nil && r.d.Reason.ClassifierApprovable
}
