package bashrules

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/reinsdev/reins/bashrules/cmdline"
	"github.com/reinsdev/reins/permission"
)

// eval decides one command, its children first.
func (k *checker) eval(c *Command) result {
	if r, ok := k.memo.result(c); ok {
		return r
	}
	if r, ok := k.twin(c); ok {
		k.memo.setResult(c, r)
		return r
	}
	prev := k.rec.cur
	k.rec.cur = c
	k.evals++
	r := k.evalCommand(c)
	k.rec.cur = prev
	k.memo.setResult(c, r)
	if k.rec.effects != nil && c.Parent != nil && (!c.Speculative || r.v == vDeny || r.v == vAskRule) {
		k.rec.cur = c.Parent
		k.rec.effect("runs", c.Text, "the rules, as if it stood alone", r.v)
		k.rec.cur = prev
	}
	if k.rec.on {
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
		k.rec.note("bash: "+c.Kind.String(), r.v.String(), detail)
	}
	return r
}

// evalCommand decides one command in the stages the package doc names: deny and ask rules,
// the children, the effects (paths, directory changes, executing options, names the analysis
// cannot see), exact allow rules, prefix and wildcard allow rules, the read-only set, and
// acceptEdits. An effect that asks is never settled by an allow rule: a rule allows the
// command, not what the analysis found it does.
func (k *checker) evalCommand(c *Command) result {
	cands := candidates(c, k.candArray())
	if r, ok := k.stageRules(c, cands); ok {
		return r
	}
	if c.Speculative {
		return k.stageSpeculative(c)
	}
	kr := k.stageChildren(c)
	worst := kr.worst
	po := k.paths.command(c, len(k.memo.children[c]) > 0)
	worst = worse(worst, po.res)
	cdRes, isCd := k.paths.cd.each[c]
	if isCd {
		worst = worse(worst, cdRes)
	}
	eff := k.stageEffects(c)
	worst = worse(worst, eff)
	if len(po.issues) > 0 {
		// What a path option runs or reads (curl -O, ssh -o ProxyCommand, sed -f) is an effect
		// the analysis cannot follow: no allow rule settles it.
		worst = worse(worst, k.verdicts.execAsk(c, po.issues[0]))
	}
	name, trusted := "", false
	if len(c.Argv) > 0 {
		name, trusted = commandName(c.Argv[0])
	}
	// The analysis's own findings about this command; c is never modified.
	issues := c.Issues
	if issue := subscriptIssue(name, c); issue != "" {
		issues = append(slices.Clip(issues), issue)
	}
	known := fullyKnown(c, issues)
	unseenByRules := !known && !quietExpansions(c, name, trusted) && k.idx.denyAsk && (name == "" || k.idx.mayName(name))
	if worst.v >= vAsk {
		// What the analysis could not see, under a deny or ask rule, asks for safety, which
		// bypass mode does not settle as it settles a path's ask (script -c "$X" /tmp/log).
		switch {
		case len(issues) > 0 && k.idx.denyAsk:
			worst = worse(worst, k.verdicts.unseen(issues[0]))
		case unseenByRules:
			worst = worse(worst, k.verdicts.unseen(opaqueWhy(c)))
		}
		return worst
	}
	if eff.v == vUnsure {
		// A name the analysis cannot see: only an exact rule for this very command allows it.
		if r := k.idx.allow.match(cands.allowExact, false); r != nil {
			return k.verdicts.ruleResult(vAllow, r, c.Text)
		}
		return eff
	}
	r, ok, notCovered := k.stageAllowRules(c, cands, issues)
	if ok {
		return r
	}
	if r, ok := k.stageStructure(c, name, kr, issues); ok {
		return r
	}
	if isCd {
		return cdRes
	}
	safeEnv := safeAssigns(c.Assigns)
	if r, ok := k.stageReadOnly(c, name, known, trusted, safeEnv, po); ok {
		return r
	}
	if k.pc.Mode() == permission.ModeAcceptEdits && known && trusted && safeEnv && len(po.issues) == 0 && !po.needGrant && roles().edits[name] {
		if (name == "mv" || name == "cp") && hasFlags(c.Argv[1:]) {
			k.rec.note("bash: acceptEdits", "skip", c.Text+": mv and cp with options need approval")
		} else {
			return result{v: vAllow, d: permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonMode, Mode: permission.ModeAcceptEdits}}}
		}
	}
	if len(po.issues) > 0 {
		return unsure(po.issues[0])
	}
	if unseenByRules {
		// A deny or ask rule for this command could match what the unknown words become.
		return k.verdicts.unseen(opaqueWhy(c))
	}
	if !known && !quietExpansions(c, name, trusted) {
		return unsure(opaqueWhy(c))
	}
	if notCovered != "" {
		return unsure(notCovered)
	}
	return result{v: vNeeds, suggest: suggestion(c)}
}

// stageStructure decides what the shape of a command settles: a transparent wrapper by its
// children, what the analysis could not see, function calls, arithmetic and tests, and
// assignments.
func (k *checker) stageStructure(c *Command, name string, kr kidsResult, issues []string) (result, bool) {
	if c.Transparent && kr.real > 0 && len(issues) == 0 && safeAssigns(c.Assigns) {
		if kr.allowed {
			return result{v: vAllow, d: k.verdicts.allowDecision(permission.ReasonOther, "every command "+name+" runs is allowed")}, true
		}
		if kr.unsure.v != vAllow {
			return kr.unsure, true
		}
		return result{v: vNeeds, suggest: kr.suggest}, true
	}
	if len(issues) > 0 {
		return k.verdicts.unseen(issues[0]), true
	}
	switch c.Kind {
	case KindFuncCall:
		return result{v: vAllow, d: k.verdicts.allowDecision(permission.ReasonOther, "calls a function whose body is checked where it is defined")}, true
	case KindArith, KindTest:
		return result{v: vAllow, d: k.verdicts.allowDecision(permission.ReasonOther, c.Kind.String()+" runs nothing")}, true
	case KindAssign, KindDecl:
		if why := unsafeAssignment(c); why != "" {
			return result{v: vNeeds}, true
		}
		return result{v: vAllow, d: k.verdicts.allowDecision(permission.ReasonOther, "sets shell variables only")}, true
	}
	return result{}, false
}

// stageRules matches deny and ask rules against every form of the command: through its
// assignments and wrappers, by base name, with its options normalised.
func (k *checker) stageRules(c *Command, cands candSet) (result, bool) {
	if r := k.idx.deny.match(cands.deny, true); r != nil {
		return k.verdicts.ruleResult(vDeny, r, c.Text), true
	}
	if r := k.rules.normDeny(c); r != nil {
		return k.verdicts.ruleResult(vDeny, r, c.Text+" (options normalised)"), true
	}
	if r := k.rules.opaqueDenyOf(c); r != nil {
		why := "the deny rule " + r.Value.Content + " names options of a program the knowledge base does not fully describe, and this command's options cannot be normalised to check it"
		k.rec.noteRule("bash: deny rule", "ask (safety check)", c.Text+": "+why, r)
		return result{v: vSafety, d: askDecision("This command needs approval: "+why+".", permission.ReasonSafetyCheck, why)}, true
	}
	if r := k.idx.ask.match(cands.deny, true); r != nil {
		return k.verdicts.ruleResult(vAskRule, r, c.Text), true
	}
	if r := k.rules.normAsk(c); r != nil {
		return k.verdicts.ruleResult(vAskRule, r, c.Text+" (options normalised)"), true
	}
	return result{}, false
}

// opaqueDenyOf is opaqueDeny for c, whose normal form normDeny computed if any deny rule
// could apply to it.
func (rl *ruleMatch) opaqueDenyOf(c *Command) *permission.Rule {
	nf, ok := rl.memo.normOf(c)
	if !ok || c.Kind != KindCall {
		return nil
	}
	return opaqueDeny(rl.idx.normDeny, nf)
}

// stageSpeculative decides a guessed command: deny and ask rules of its own children count,
// and so do the safety checks of its effects (a protected write, an exec-family option) unless
// it was guessed from an interpreter's inline code, where it may be data.
func (k *checker) stageSpeculative(c *Command) result {
	worst := allowed
	for _, ch := range k.memo.children[c] {
		if r := k.eval(ch); r.v == vDeny || r.v == vAskRule || r.v == vSafety {
			worst = worse(worst, r)
		}
	}
	if strings.HasSuffix(c.Via, " code") {
		return worst
	}
	worst = worse(worst, k.stageOpaque(c))
	po := k.paths.command(c, len(k.memo.children[c]) > 0)
	if po.res.v == vSafety || po.res.v == vDeny {
		worst = worse(worst, po.res)
	}
	if len(po.issues) > 0 {
		worst = worse(worst, k.verdicts.execAsk(c, po.issues[0]))
	}
	if c.Kind == KindCall && len(c.Argv) > 0 {
		name, _ := commandName(c.Argv[0])
		if why := execOption(name, c.Argv[1:]); why != "" {
			worst = worse(worst, k.verdicts.execAsk(c, why))
		}
	}
	return worst
}

// kidsResult is what a command's children need.
type kidsResult struct {
	worst   result // their asks and denials, which the parent inherits
	allowed bool   // every real child is allowed
	real    int
	suggest []string
	unsure  result // the first child the analysis could not see
}

// stageChildren decides the commands this one runs, each as if it stood alone.
func (k *checker) stageChildren(c *Command) kidsResult {
	kr := kidsResult{worst: allowed, allowed: true, unsure: allowed}
	for _, ch := range k.memo.children[c] {
		r := k.eval(ch)
		if ch.Speculative {
			if r.v == vDeny || r.v == vAskRule || r.v == vSafety {
				if strings.HasSuffix(ch.Via, " code") {
					why := fmt.Sprintf("inline code of %s holds %q, which a %s rule covers", firstWord(c), ch.Text, map[verdict]string{vDeny: "deny", vAskRule: "ask"}[r.v])
					r = result{v: vSafety, d: askDecision("This command needs approval: "+why+".", permission.ReasonSafetyCheck, why)}
				}
				kr.worst = worse(kr.worst, r)
			}
			continue
		}
		kr.real++
		if r.v != vAllow {
			kr.allowed = false
			kr.suggest = append(kr.suggest, r.suggest...)
			if r.v == vUnsure && kr.unsure.v == vAllow {
				kr.unsure = r
			}
		}
		if r.v >= vAsk {
			kr.worst = worse(kr.worst, r)
		}
	}
	return kr
}

// stageAllowRules tries exact allow rules, then prefix and wildcard ones (only for a command
// whose every word is known). A prefix or wildcard rule does not apply when a later word
// starts a command that a deny or ask rule names (Bash(devbox run *) with Bash(rm *) denied
// does not allow devbox run rm -f x).
//
// A prefix or wildcard rule does not cover an option the knowledge base does not know or
// marks as running code, naming a program or writing (coverage.go): notCovered says why.
func (k *checker) stageAllowRules(c *Command, cands candSet, issues []string) (res result, ok bool, notCovered string) {
	if r := k.idx.allow.match(cands.allowExact, false); r != nil {
		return k.verdicts.ruleResult(vAllow, r, c.Text), true, ""
	}
	if !fullyKnown(c, issues) {
		return result{}, false, ""
	}
	r := k.idx.allow.match(cands.allowLoose, true)
	if r == nil || !single(cands, r) {
		return result{}, false, ""
	}
	if why := uncovered(r, c); why != "" {
		k.rec.noteRule("bash: allow rule", "not covered", c.Text+": "+why, r)
		return result{}, false, why
	}
	if hit, ok := k.rules.laterCommandRule(c); ok {
		return hit, true, ""
	}
	return k.verdicts.ruleResult(vAllow, r, c.Text), true, ""
}

// stageReadOnly allows a command of the read-only set whose options keep it read-only.
func (k *checker) stageReadOnly(c *Command, name string, known, trusted, safeEnv bool, po pathOutcome) (result, bool) {
	if !trusted || !safeEnv || len(po.issues) > 0 || po.writes || c.OtherDir {
		return result{}, false
	}
	if !known && !quietExpansions(c, name, trusted) && !readOnlyXargsChild(&k.memo, c) {
		return result{}, false
	}
	if k.paths.bareGit(name, c) {
		return result{}, false
	}
	ro, ok := readOnlyFor(name)
	if !ok {
		return result{}, false
	}
	if why := ro(c.Argv[1:]); why != "" {
		k.rec.note("bash: not read-only", "", c.Text+": "+why)
		return result{}, false
	}
	return result{v: vAllow, d: k.verdicts.allowDecision(permission.ReasonOther, readOnlyDetail(name))}, true
}

// readOnlyDetails are the reasons of the read-only set's commands, built once rather than
// once per command allowed.
var readOnlyDetails = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, len(readOnlyCommands()))
	for name := range readOnlyCommands() {
		m[name] = name + " only reads"
	}
	return m
})

func readOnlyDetail(name string) string {
	if d, ok := readOnlyDetails()[name]; ok {
		return d
	}
	return name + " only reads"
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
func fullyKnown(c *Command, issues []string) bool {
	if c.Argv == nil || c.ExtraArgs || len(issues) > 0 {
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

// subscriptIssue says why a builtin whose entry says subscripts (printf, read, unset) runs
// commands: a name it is given holds an array subscript with a command substitution
// (printf -v 'a[$(cmd)]').
func subscriptIssue(name string, c *Command) string {
	if !roles().subscripts[name] {
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

var safeValueRE = lazyRE(`^[A-Za-z0-9_./:@%+,=-]*$`)

func safeAssigns(as []Assignment) bool {
	for _, a := range as {
		if !safeEnvVars[a.Name] || a.Indexed || a.Array || !a.Value.Known || a.Value.Src != a.Value.Value || !safeValueRE().MatchString(a.Value.Value) {
			return false
		}
	}
	return true
}

var shellVarRE = lazyRE(`^[a-z_][a-z0-9_]*$`)

// unsafeAssignment says why a statement of assignments (or declare/export) may change how
// later commands run: environment-style names (PATH, LD_PRELOAD, GIT_*), proxies, integer and
// nameref attributes.
func unsafeAssignment(c *Command) string {
	if c.Kind == KindDecl {
		if !roles().declares[c.Argv[0].Value] {
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
		if !shellVarRE().MatchString(a.Name) || strings.HasSuffix(a.Name, "_proxy") {
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

// candArray hands out a fresh array of nine strings for one command's candidates, cut from a
// chunk shared by the commands of one decision: each command has its own part, capped so that
// appending past it moves to a new array rather than into the next command's part.
func (k *checker) candArray() []string {
	const n = candsPerCommand
	if len(k.candChunk)+n > cap(k.candChunk) {
		k.candChunk = make([]string, 0, 6*n)
	}
	i := len(k.candChunk)
	k.candChunk = k.candChunk[:i+n]
	return k.candChunk[i : i+n : i+n]
}

// candsPerCommand is the size of the array candArray hands out.
const candsPerCommand = 9

// candidates are the strings c's rules are matched against. back holds nine of them (both
// lists, large enough for the usual command; appending past it is still correct).
func candidates(c *Command, back []string) candSet {
	cs := candSet{deny: back[:0:6], allowExact: back[6:6:9]}
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
	noAssign := c.Text // the words' source joined by spaces, when there is no assignment
	if len(c.Assigns) > 0 || !srcJoined(c.Words, c.Text) {
		rawWords := make([]string, len(c.Words))
		for i, w := range c.Words {
			rawWords[i] = w.Src
		}
		noAssign = strings.Join(rawWords, " ")
	}
	add(&cs.deny, noAssign)
	// Most words are written as their values: then these are the text already built.
	plain := joinValuesOr(c.Argv, false, noAssign)
	quoted := joinValuesOr(c.Argv, true, plain)
	add(&cs.deny, plain)
	add(&cs.deny, quoted)
	if len(c.Argv) > 0 && c.Argv[0].Known && strings.ContainsRune(c.Argv[0].Value, '/') {
		base := c.Argv[0]
		base.Value = path.Base(base.Value)
		add(&cs.deny, joinValues(append([]Word{base}, c.Argv[1:]...), false))
	}
	if s := programCandidate(c); s != "" {
		add(&cs.deny, s)
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

// srcJoined reports whether s is the words' source joined by single spaces.
func srcJoined(ws []Word, s string) bool {
	for i, w := range ws {
		if i > 0 {
			if s == "" || s[0] != ' ' {
				return false
			}
			s = s[1:]
		}
		if !strings.HasPrefix(s, w.Src) {
			return false
		}
		s = s[len(w.Src):]
	}
	return s == ""
}

// joinValuesOr is joinValues, returning same (not a new copy) when that is what joinValues
// would build.
func joinValuesOr(ws []Word, quote bool, same string) string {
	rest := same
	for i, w := range ws {
		if i > 0 {
			if rest == "" || rest[0] != ' ' {
				return joinValues(ws, quote)
			}
			rest = rest[1:]
		}
		piece := w.Src
		switch {
		case !w.Known:
		case quote:
			if needsQuoting(w.Value) {
				return joinValues(ws, quote)
			}
			piece = w.Value
		default:
			piece = w.Value
		}
		if !strings.HasPrefix(rest, piece) {
			return joinValues(ws, quote)
		}
		rest = rest[len(piece):]
	}
	if rest != "" {
		return joinValues(ws, quote)
	}
	return same
}

// wordPiece is what joinValues writes for w without quoting.
func wordPiece(w Word) string {
	if !w.Known {
		return w.Src
	}
	return w.Value
}

func joinValues(ws []Word, quote bool) string {
	var b strings.Builder
	n := len(ws)
	for _, w := range ws {
		n += max(len(w.Src), len(w.Value))
	}
	b.Grow(n)
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
		if MatchRule(r.Value.Content, s) && oneSimpleCommand(s) {
			return true
		}
	}
	return false
}

// oneSimpleCommand reports whether s parses as exactly one simple command (a call or a
// declaration) whose every word is known, with no redirections and nothing the analysis
// could not see. It depends on s alone, so answers are remembered: an agent runs the same
// commands again and again, and each answer costs a parse and a walk.
func oneSimpleCommand(s string) bool {
	if len(s) > maxParseLength {
		return false // Analyze would refuse it
	}
	if v, ok := simpleCache.get(s); ok {
		return v
	}
	v := parseOneSimple(s)
	simpleCache.put(s, v)
	return v
}

func parseOneSimple(s string) bool {
	f, err := parse(s)
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	// One parse serves both questions: one statement, and what Analyze finds in it.
	a := cmdline.AnalyzeFile(s, f, walkHooks)
	if len(a.Redirects) != 0 || len(a.Issues) != 0 {
		return false
	}
	var top []*Command
	for _, c := range a.Commands {
		if c.Parent == nil {
			top = append(top, c)
		}
	}
	return len(top) == 1 && (top[0].Kind == KindCall || top[0].Kind == KindDecl) && fullyKnown(top[0], top[0].Issues)
}

// boolCache remembers answers of a pure function of a string, for strings up to
// maxCachedLen bytes; it forgets everything once it holds maxCached answers, which bounds
// its memory without bookkeeping per entry.
type boolCache struct {
	mu sync.Mutex
	m  map[string]bool
}

const (
	maxCached    = 2048
	maxCachedLen = 1024
)

var simpleCache boolCache

func (c *boolCache) get(s string) (v, ok bool) {
	if len(s) > maxCachedLen {
		return false, false
	}
	c.mu.Lock()
	v, ok = c.m[s]
	c.mu.Unlock()
	return v, ok
}

func (c *boolCache) put(s string, v bool) {
	if len(s) > maxCachedLen {
		return
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = make(map[string]bool, 64)
	}
	c.m[s] = v
	c.mu.Unlock()
}

// spoofing reports characters that make a command display differently from what runs:
// control characters, bidirectional overrides, invisible and non-ASCII space characters.
func spoofing(s string) string {
	// Printable ASCII, tab and newline are none of these: most commands are only those.
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < 0x20 && b != '\t' && b != '\n') || b >= 0x7f {
			return spoofingRunes(s)
		}
	}
	return ""
}

// spoofingRunes is spoofing rune by rune.
func spoofingRunes(s string) string {
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
