package bashrules

import (
	"path"
	"slices"
	"strings"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
)

// Deny and ask rules match the meaning of a command, not its spelling: Bash(rm -rf:*) also
// matches rm -Rf, rm -fr, rm -r -f, rm --recursive --force, rm --rec --for and rm -v -rf x;
// Bash(git push --force:*) matches git push -f, git push origin main --force, git push origin
// +main and --force-with-lease. Both the rule and the command are brought to a normal form —
// the command's name and subcommand, the set of its options under canonical names, and its
// operands in order — and a prefix rule matches when its options are a subset of the
// command's and its operands a prefix of the command's. Only deny and ask rules are matched
// this way: normalising can only make them apply more often, never an allow rule.

// normForm is a command or rule in normal form.
type normForm struct {
	path  string   // name, or "name sub" for commands with subcommand tables
	flags []string // canonical option names (name=value for one given a value), sorted, without duplicates
	ops   []string // operands in order
	// opaque: the command has options that cannot be normalised (its program, or the
	// subcommand, has no knowledge-base entry).
	opaque bool
	// unsure says why the analysis cannot tell which subcommand, resource or goal the
	// command names — a word its entry cannot place, an option before the subcommand that
	// the entry does not know, objects named in a file (kubectl delete -f) — or "".
	unsure string
	// goals: the operands are goals, in any order (make); lists: an operand may be a list of
	// names, each perhaps qualified by /NAME (kubectl get pods,svc; pods/web).
	goals, lists bool
}

// normRule is a deny or ask rule in normal form.
type normRule struct {
	r     *permission.Rule
	pos   int
	exact bool
	form  normForm
}

// normalize brings a command's words (values after quote removal) to normal form. The name is
// the base name of a command run by path. A program with a knowledge-base entry is read as
// the entry says (its subcommand, aliases, abbreviations, clusters and values); any other is
// read generically, and opaque records that it has options the analysis cannot normalise.
// It returns false for an empty command.
func normalize(words []string) (normForm, bool) {
	if len(words) == 0 {
		return normForm{}, false
	}
	name := path.Base(words[0])
	if e, ok := knowledge.Lookup(name); ok {
		return normalizeKB(name, e, words[1:]), true
	}
	nf := normForm{path: name}
	all := words[1:] // only read below
	for i, w := range all {
		switch {
		case w == "--":
			nf.ops = append(nf.ops, all[i+1:]...)
			slices.Sort(nf.flags)
			return nf, true
		case strings.HasPrefix(w, "-") && len(w) > 1 && !isNumber(w[1:]):
			nf.opaque = true
			n, _, _ := strings.Cut(w, "=")
			if !slices.Contains(nf.flags, n) {
				nf.flags = append(nf.flags, n)
			}
		default:
			nf.ops = append(nf.ops, w)
		}
	}
	slices.Sort(nf.flags)
	return nf, true
}

// normalizeKB reads a command the way its entry says: every option under its canonical names,
// every operand under its canonical spelling (kubectl's po is pods), goals as a set. An option
// the entry does not know keeps its spelling; past a subcommand the entry does not list,
// options are opaque, and what the command names is unsure.
func normalizeKB(name string, e *knowledge.Command, args []string) normForm {
	nf := normForm{path: name}
	var kbuf [8]knowledge.Arg
	kargs := kbuf[:0]
	for _, a := range args {
		kargs = append(kargs, knowledge.Arg{Value: a, Known: true})
	}
	p := parsedPool.Get().(*knowledge.Parsed)
	defer parsedPool.Put(p)
	e.ParseInto(kargs, p)
	if p.Sub != nil {
		nf.path = name + " " + p.Sub.Names[0]
	}
	_, nf.goals = e.Role(knowledge.RoleGoals)
	nf.lists = len(e.Aliases) > 0
	add := func(f string) {
		if !slices.Contains(nf.flags, f) {
			nf.flags = append(nf.flags, f)
		}
	}
	for _, u := range p.Uses {
		for _, c := range u.Opt.Canon {
			if u.HasValue {
				c += "=" + u.Value // a rule that names the value matches only it
			}
			add(c)
		}
		if u.Opt.Effects&knowledge.List != 0 && nf.unsure == "" {
			nf.unsure = "option " + u.Spelling + " names what it acts on in a file"
		}
	}
	partial := e.Partial || p.Sub != nil && p.Sub.Partial
	for _, u := range p.Unknown {
		// A partial entry's unknown option may be an alias or abbreviation of a rule's.
		nf.opaque = nf.opaque || partial
		add(u.Text)
		if len(e.Subcommands()) > 0 && (p.Sub == nil || u.Word < p.SubWord) && nf.unsure == "" {
			// It may take the next word as its value, or not: which word is the
			// subcommand cannot be told.
			nf.unsure = "option " + u.Text + ", which the knowledge base does not know, comes before the subcommand"
		}
	}
	for _, s := range p.Sigils {
		add(s)
	}
	sigils := e.Sigils
	if p.Sub != nil {
		sigils = p.Sub.Sigils
	}
	nf.ops = normOperands(&nf, e, p, args, sigils, add)
	if nf.goals {
		slices.Sort(nf.ops)
	}
	slices.Sort(nf.flags)
	return nf
}

// normOperands are a command's operands in normal form: past a subcommand the entry does not
// list, options are opaque; sigils come off; an assignment of a goal-taking program is an
// option; every other word takes its canonical spelling.
func normOperands(nf *normForm, e *knowledge.Command, p *knowledge.Parsed, args []string, sigils map[byte]string, add func(string)) []string {
	var ops []string
	dashes := false // past a "--" beyond what the entry knows
	for _, i := range p.Operands {
		w := args[i]
		if p.Beyond >= 0 && i > p.Beyond && !dashes {
			if w == "--" {
				dashes = true
				continue
			}
			if strings.HasPrefix(w, "-") && len(w) > 1 && !isNumber(w[1:]) {
				nf.opaque = true
				f, _, _ := strings.Cut(w, "=")
				add(f)
				continue
			}
		}
		if i == p.Beyond {
			nf.path = nf.path + " " + w
			if nf.unsure == "" {
				nf.unsure = w + " is no subcommand the knowledge base lists (an alias, a plugin?)"
			}
			continue
		}
		if len(w) > 1 && sigils[w[0]] != "" {
			w = w[1:]
		}
		if nf.goals && strings.Contains(w, "=") && !strings.HasPrefix(w, "=") {
			add(w) // make FOO=1: a variable, not a goal
			continue
		}
		ops = append(ops, canonOperand(e, w))
	}
	return ops
}

// canonOperand spells an operand as its entry's aliases say: kubectl's po is pods, and so is
// each name of a list (po,svc is pods,services) and the kind of a kind/name (po/web).
func canonOperand(e *knowledge.Command, w string) string {
	if len(e.Aliases) == 0 {
		return w
	}
	head, rest, slash := strings.Cut(w, "/")
	parts := strings.Split(head, ",")
	for i, part := range parts {
		if c, ok := e.Aliases[strings.ToLower(part)]; ok {
			parts[i] = c
		}
	}
	out := strings.Join(parts, ",")
	if slash {
		out += "/" + rest
	}
	return out
}

func isNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// covers reports whether a rule in normal form matches a command in normal form.
func (nr normRule) covers(c normForm) bool {
	f := nr.form
	if f.path != c.path {
		return false
	}
	if nr.exact {
		return slices.Equal(f.flags, c.flags) && slices.Equal(f.ops, c.ops)
	}
	for _, fl := range f.flags {
		if !hasFlag(c.flags, fl) {
			return false
		}
	}
	if c.goals {
		// Goals are a set: the rule's goals among the command's, wherever they stand.
		for _, g := range f.ops {
			if !slices.Contains(c.ops, g) {
				return false
			}
		}
		return true
	}
	if len(f.ops) > len(c.ops) {
		return false
	}
	for i, op := range f.ops {
		if op != c.ops[i] && !(c.lists && listHas(c.ops[i], op)) {
			return false
		}
	}
	return true
}

// listHas reports whether an operand that may be a list of names, each perhaps with a /NAME
// (pods,services; pods/web), names what a rule's operand does.
func listHas(op, rule string) bool {
	head, _, _ := strings.Cut(op, "/")
	rhead, rrest, rslash := strings.Cut(rule, "/")
	if rslash {
		// The rule names one object: the command's kind and name must be it.
		return strings.HasPrefix(op, rhead+"/") && strings.TrimPrefix(op, rhead+"/") == rrest
	}
	return slices.Contains(strings.Split(head, ","), rule)
}

// hasFlag reports whether a command's flags hold a rule's: the same option with the same value
// when the rule gives one (lines=5), with any value or none when it does not (in-place).
func hasFlag(flags []string, fl string) bool {
	if strings.Contains(fl, "=") {
		return slices.Contains(flags, fl)
	}
	for _, c := range flags {
		if c == fl || strings.HasPrefix(c, fl) && c[len(fl)] == '=' {
			return true
		}
	}
	return false
}

// normIndex holds deny or ask rules in normal form. A rule covers only commands whose normal
// form has its path ("git push"), so rules are kept by path: a check looks at the rules of
// its own subcommand, however many rules name the same command.
type normIndex struct {
	names  map[string]bool       // command names some rule names
	byPath map[string][]normRule // rules by the path of their normal form, in load order
}

// normRules indexes deny or ask rules by the path of their normal form. Only rules made of
// plain words are normalised (a prefix rule, "words *", or an exact rule); wildcards inside,
// quotes and escapes keep to the textual matcher.
func normRules(rules []*permission.Rule) normIndex {
	out := normIndex{names: map[string]bool{}, byPath: map[string][]normRule{}}
	for i, r := range rules {
		out.add(r, i, strings.TrimSpace(r.Value.Content))
		for _, content := range otherNames(strings.TrimSpace(r.Value.Content)) {
			out.add(r, i, content)
		}
	}
	return out
}

// add indexes one rule, as the text content, in normal form.
func (out normIndex) add(r *permission.Rule, i int, content string) {
	exact := false
	switch Form(content) {
	case FormPrefix:
		content = strings.TrimSuffix(content, ":*")
	case FormWildcard:
		if stars(content) != 1 || !strings.HasSuffix(content, " *") {
			return
		}
		content = strings.TrimSuffix(content, " *")
	default:
		exact = true
	}
	if strings.ContainsAny(content, "*\\'\"$`{}()<>|;&[]~") {
		return
	}
	fields := strings.Fields(content)
	nf, ok := normalize(fields)
	if !ok {
		return
	}
	name, _, _ := strings.Cut(nf.path, " ")
	if !hasOptionWord(fields) && !readByMeaning(name) {
		// Plain words with no options, for a command whose options cannot come before its
		// subcommand: the textual matcher already sees every spelling.
		return
	}
	out.names[name] = true
	out.byPath[nf.path] = append(out.byPath[nf.path], normRule{r: r, pos: i, exact: exact, form: nf})
}

// readByMeaning reports a program whose words a rule without options still matches on the
// normal form: one whose entry lists subcommands (options may come before them: git -C x
// push, kubectl --context c delete; aliases: docker container rm), goals (make -j4 deploy) or
// operand aliases (kubectl delete po).
func readByMeaning(name string) bool {
	e, ok := knowledge.Lookup(name)
	if !ok {
		return false
	}
	_, goals := e.Role(knowledge.RoleGoals)
	return len(e.Subcommands()) > 0 || goals || len(e.Aliases) > 0
}

func hasOptionWord(fields []string) bool {
	for _, f := range fields[1:] {
		if strings.HasPrefix(f, "-") || strings.HasPrefix(f, "+") || strings.HasPrefix(f, ":") {
			return true
		}
	}
	return false
}

// normMatch returns the earliest normalised rule covering the command's known words.
func normMatch(idx normIndex, argv []Word) *permission.Rule {
	if len(idx.names) == 0 || len(argv) == 0 || !argv[0].Known || !idx.names[path.Base(argv[0].Value)] {
		return nil
	}
	nf, ok := normalizeArgv(argv)
	if !ok {
		return nil
	}
	return matchNorm(idx.byPath[nf.path], nf)
}

// normalizeArgv normalises the known prefix of a command's words: rules see what is known.
func normalizeArgv(argv []Word) (normForm, bool) {
	var buf [8]string // normalize keeps none of its words' slice
	words := buf[:0]
	for _, w := range argv {
		if !w.Known {
			break
		}
		words = append(words, w.Value)
	}
	return normalize(words)
}

func matchNorm(rules []normRule, nf normForm) *permission.Rule {
	var best *normRule
	for i := range rules {
		if (best == nil || rules[i].pos < best.pos) && rules[i].covers(nf) {
			best = &rules[i]
		}
	}
	if best == nil {
		return nil
	}
	return best.r
}

// ruleMatch matches deny and ask rules on what a command means rather than how it is
// spelled: on its normal form (computed once per command, kept in the memo), on the commands
// a later word may run, and on the programs a pattern in command position may name.
type ruleMatch struct {
	idx      *bashIndexes
	memo     *memo
	verdicts *verdicts
}

func (rl *ruleMatch) normDeny(c *Command) *permission.Rule { return rl.normRule(rl.idx.normDeny, c) }

// normAsk also returns an ask rule naming more of the program than its name when what the
// command names cannot be placed: asking is what the rule would do.
func (rl *ruleMatch) normAsk(c *Command) *permission.Rule {
	if r := rl.normRule(rl.idx.normAsk, c); r != nil {
		return r
	}
	if nf, ok := rl.memo.normOf(c); ok && nf.unsure != "" {
		return unsureRule(rl.idx.normAsk, nf)
	}
	return nil
}

// normRule matches a command's normal form, computed once per command, against rules.
func (rl *ruleMatch) normRule(idx normIndex, c *Command) *permission.Rule {
	if c.Kind != KindCall && c.Kind != KindDecl || len(idx.names) == 0 || len(c.Argv) == 0 || !c.Argv[0].Known || !idx.names[path.Base(c.Argv[0].Value)] {
		return nil
	}
	nf, ok := rl.memo.normOf(c)
	if !ok {
		nf, _ = normalizeArgv(resolvedArgv(c))
		rl.memo.setNorm(c, nf)
	}
	if nf.path == "" {
		return nil
	}
	return matchNorm(idx.byPath[nf.path], nf)
}

// normOf returns c's normal form if it was computed.
func (m *memo) normOf(c *Command) (normForm, bool) {
	if s := m.slot(c); s != nil {
		return s.norm, s.normed
	}
	nf, ok := m.norms[c]
	return nf, ok
}

// setNorm records c's normal form: in its slot, or in a map for a command outside the analysis.
func (m *memo) setNorm(c *Command, nf normForm) {
	if s := m.slot(c); s != nil {
		s.norm, s.normed = nf, true
		return
	}
	if m.norms == nil {
		m.norms = map[*Command]normForm{}
	}
	m.norms[c] = nf
}

// resolvedArgv is the command's words with a git alias set by -c alias.NAME=VALUE replaced by
// its value (git -c alias.x=push x is git push).
func resolvedArgv(c *Command) []Word {
	if n, _ := c.Name(); n == "git" {
		if argv, ok := gitAliasResolved(c.Argv); ok {
			return argv
		}
	}
	return c.Argv
}

// gitAliasResolved replaces the subcommand of a git command with the alias -c defines for it.
func gitAliasResolved(argv []Word) ([]Word, bool) {
	aliases := map[string]string{}
	i := 1
	for i < len(argv) && argv[i].Known && strings.HasPrefix(argv[i].Value, "-") {
		v := argv[i].Value
		if v == "-c" && i+1 < len(argv) && argv[i+1].Known {
			if k, val, ok := strings.Cut(argv[i+1].Value, "="); ok && strings.HasPrefix(strings.ToLower(k), "alias.") {
				aliases[strings.ToLower(k[len("alias."):])] = val
			}
			i += 2
			continue
		}
		if v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--config-env" {
			i++
		}
		i++
	}
	if i >= len(argv) || !argv[i].Known || len(aliases) == 0 {
		return nil, false
	}
	val, ok := aliases[strings.ToLower(argv[i].Value)]
	if !ok || strings.HasPrefix(val, "!") {
		return nil, false
	}
	out := slices.Clone(argv[:i])
	for _, f := range strings.Fields(val) {
		out = append(out, Word{Src: f, Value: f, Known: true})
	}
	return append(out, argv[i+1:]...), true
}

// laterCommandRule applies deny and ask rules to the commands a prefix or wildcard allow rule
// may be running at a later word: Bash(devbox run *) matches devbox run rm -f x, whose rm a
// deny rule names. It returns the deny or ask result and true when one applies.
func (rl *ruleMatch) laterCommandRule(c *Command) (result, bool) {
	if rl.idx.deny == nil && rl.idx.ask == nil {
		return result{}, false
	}
	// The words from i on, joined, are usually the end of the whole command's joined words,
	// which is usually its text: joinValuesOr checks that and builds them only if not.
	full := joinValuesOr(c.Argv, false, c.Text)
	off := 0 // where word i starts in full, if full is the words joined by single spaces
	for i := 1; i < len(c.Argv); i++ {
		off += len(wordPiece(c.Argv[i-1])) + 1
		w := c.Argv[i]
		if !w.Known || strings.HasPrefix(w.Value, "-") || strings.Contains(w.Value, "=") {
			continue
		}
		if !rl.idx.mayName(w.Value) {
			continue
		}
		rest := c.Argv[i:]
		plain := joinFrom(rest, full, off)
		cands := []string{plain, joinValuesOr(rest, true, plain)}
		if cands[1] == plain {
			cands = cands[:1] // nothing needed quoting: one string to match, not the same twice
		}
		if r := rl.idx.deny.match(cands, true); r != nil {
			return rl.verdicts.ruleResult(vDeny, r, c.Text+" (runs "+w.Value+")"), true
		}
		if r := normMatch(rl.idx.normDeny, rest); r != nil {
			return rl.verdicts.ruleResult(vDeny, r, c.Text+" (runs "+w.Value+")"), true
		}
		if r := rl.idx.ask.match(cands, true); r != nil {
			return rl.verdicts.ruleResult(vAskRule, r, c.Text+" (runs "+w.Value+")"), true
		}
		if r := normMatch(rl.idx.normAsk, rest); r != nil {
			return rl.verdicts.ruleResult(vAskRule, r, c.Text+" (runs "+w.Value+")"), true
		}
	}
	return result{}, false
}

// joinFrom is joinValues(ws, false), taken from full at off when it is there (ws are the
// last words of the words full joins, and off where the first of them starts).
func joinFrom(ws []Word, full string, off int) string {
	if off <= len(full) {
		return joinValuesOr(ws, false, full[off:])
	}
	return joinValues(ws, false)
}

// mayName reports whether some deny or ask rule could match a command starting with the word:
// a rule whose first word it is, or one whose first word is not literal.
func (x *bashIndexes) mayName(w string) bool {
	base := path.Base(w)
	for _, rs := range []*ruleSet{x.deny, x.ask} {
		if rs != nil && (rs.firstWords[w] || rs.firstWords[base] || len(rs.anyWord) > 0 || len(rs.anyByByte) > 0) {
			return true
		}
		if rs != nil && (rs.exactFirst[w] || rs.exactFirst[base]) {
			return true
		}
	}
	return x.normDeny.names[base] || x.normAsk.names[base]
}

// opaqueDeny returns a deny rule that names options of a command's program (or subcommand)
// when the command, in normal form nf, has options the analysis cannot normalise: with no
// knowledge-base entry, --ba may abbreviate the rule's --bar and -x may be its alias, so the
// rule cannot be shown not to apply. It also returns a rule naming a subcommand, resource or
// goal of the program when the command's own cannot be placed (nf.unsure).
func opaqueDeny(idx normIndex, nf normForm) *permission.Rule {
	if nf.opaque {
		for _, nr := range idx.byPath[nf.path] {
			if len(nr.form.flags) > 0 {
				return nr.r
			}
		}
	}
	if nf.unsure != "" {
		return unsureRule(idx, nf)
	}
	return nil
}

// unsureRule returns the earliest rule that names more of the program than its name — a
// subcommand, or operands — when the command's cannot be placed.
func unsureRule(idx normIndex, nf normForm) *permission.Rule {
	name, _, _ := strings.Cut(nf.path, " ")
	var best *normRule
	for path, rules := range idx.byPath {
		if path != name && !strings.HasPrefix(path, name+" ") {
			continue
		}
		for i := range rules {
			nr := &rules[i]
			if (path != name || len(nr.form.ops) > 0) && (best == nil || nr.pos < best.pos) {
				best = nr
			}
		}
	}
	if best == nil {
		return nil
	}
	return best.r
}
