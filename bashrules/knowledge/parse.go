package knowledge

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/posjson"
)

// ParseError is a broken entry: where, and what is wrong. It is the positioned error every
// configuration reader of Reins returns, so a caller reports them all one way.
type ParseError = posjson.Error

// token is a word of a line with its column (1-based).
type token struct {
	s   string
	col int
}

func tokens(line string) []token {
	// A comment starts at a # that begins a word and is a word of its own or starts the line:
	// -# is a spelling (zip's compression level).
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' || i == 0 || isCommentStart(line[:i])) {
			line = line[:i]
			break
		}
	}
	var out []token
	for i := 0; i < len(line); {
		if line[i] == ' ' || line[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		out = append(out, token{line[i:j], i + 1})
		i = j
	}
	return out
}

// isCommentStart reports whether only blanks come before a # (a comment line).
func isCommentStart(before string) bool { return strings.TrimLeft(before, " \t") == "" }

// entry holds the state of one file's reading.
type reader struct {
	file  string
	line  int
	progs []*Command
	prog  *Command // current program
	cur   *Command // current program or subcommand
	// treeOpts are the tree options of the current program's paths role, checked when the
	// entry is finished.
	treeOpts []pos
	// peeled are the options of the current program's wrapper role, checked likewise.
	peeled []pos
}

// pos is a token of an earlier line.
type pos struct {
	line int
	tok  token
}

func (r *reader) errf(col int, format string, args ...any) error {
	return &ParseError{File: r.file, Line: r.line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

var (
	nameRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`) })
	envRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	optNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_#][A-Za-z0-9_.+#-]*$`) })
	patternRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-[A-Za-z0-9][A-Za-z0-9,_.+=-]*\*$`) })
	canonRE   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9+-][A-Za-z0-9_.+-]*(,[A-Za-z0-9+-][A-Za-z0-9_.+-]*)*$`)
	})
)

// Parse reads the entries of one file. file names it in errors.
func Parse(file string, data []byte) ([]*Command, error) {
	r := &reader{file: file}
	for ln := range strings.SplitSeq(string(data), "\n") {
		r.line++
		ln = strings.TrimSuffix(ln, "\r")
		toks := tokens(ln)
		if len(toks) == 0 {
			continue
		}
		if err := r.directive(toks); err != nil {
			return nil, err
		}
	}
	if err := r.finish(); err != nil {
		return nil, err
	}
	return r.progs, nil
}

func (r *reader) directive(toks []token) error {
	d := toks[0]
	if d.s != "program" && r.prog == nil {
		return r.errf(d.col, "%s before the first program", d.s)
	}
	switch d.s {
	case "program":
		return r.program(toks)
	case "sub":
		return r.sub(toks)
	case "flags":
		return r.flags(toks)
	case "opt":
		return r.opt(toks)
	case "env":
		return r.env(toks)
	case "sigil":
		return r.sigil(toks)
	case "role":
		return r.role(toks)
	case "help", "helpsub", "helpskip", "helpoperands", "from", "version":
		return r.helpLine(toks)
	case "alias":
		return r.alias(toks)
	case "like":
		if len(toks) != 2 || r.cur != r.prog || !nameRE().MatchString(toks[1].s) {
			return r.errf(toks[0].col, "like names one program, in a program's entry")
		}
		r.prog.Like = toks[1].s
		return nil
	}
	return r.errf(d.col, "unknown directive %q (want program, sub, flags, opt, env, sigil, role, alias, like, help, helpsub, helpskip, helpoperands, version or from)", d.s)
}

// helpLine reads the directives that say how the entry was read and how the test against the
// installed program reads it again: help, helpsub, helpskip and from.
func (r *reader) helpLine(toks []token) error {
	d := toks[0]
	if len(toks) < 2 {
		return r.errf(d.col+len(d.s), "%s needs words", d.s)
	}
	var args []string
	for _, t := range toks[1:] {
		args = append(args, t.s)
	}
	switch d.s {
	case "help":
		r.cur.Help = append(r.cur.Help, args)
	case "helpsub":
		if r.cur != r.prog || !slices.Contains(args, "{}") {
			return r.errf(d.col, "helpsub is a directive of a program, with {} for the subcommand")
		}
		r.prog.HelpSub = args
	case "helpskip":
		for i, a := range args {
			if kindOf(a) == kBad {
				return r.errf(toks[i+1].col, "%q is not an option spelling", a)
			}
		}
		r.cur.HelpSkip = append(r.cur.HelpSkip, args...)
	case "helpoperands":
		for i, a := range args {
			if kindOf(a) == kBad {
				return r.errf(toks[i+1].col, "%q is not an option spelling", a)
			}
		}
		r.cur.HelpOperands = append(r.cur.HelpOperands, args...)
	case "version":
		r.prog.Version = args
	case "from":
		if r.cur.From != "" {
			return r.errf(d.col, "from is stated twice")
		}
		r.cur.From = strings.Join(args, " ")
	}
	return nil
}

// alias reads "alias CANON ALIAS...": an operand spelled ALIAS means CANON, which may be a
// list of canonical words (a category, as kubectl's all).
func (r *reader) alias(toks []token) error {
	if len(toks) < 3 {
		return r.errf(toks[0].col, "alias needs a canonical word and at least one other spelling")
	}
	if r.cur != r.prog {
		return r.errf(toks[0].col, "alias is a directive of a program, not of a subcommand")
	}
	if r.prog.Aliases == nil {
		r.prog.Aliases = map[string]string{}
	}
	for i, t := range toks[1:] {
		words := []string{t.s}
		if i == 0 {
			// A category: the canonical words it stands for, in a list (kubectl's all).
			words = strings.Split(t.s, ",")
		}
		for _, w := range words {
			if !nameRE().MatchString(w) {
				return r.errf(t.col, "%q is not a word", t.s)
			}
		}
		if prev, ok := r.prog.Aliases[t.s]; ok {
			return r.errf(t.col, "%s is already an alias of %s", t.s, prev)
		}
		r.prog.Aliases[t.s] = toks[1].s
	}
	return nil
}

func (r *reader) names(toks []token, what string) ([]string, error) {
	if len(toks) < 2 {
		return nil, r.errf(toks[0].col+len(toks[0].s), "%s needs a name", what)
	}
	var out []string
	for _, t := range toks[1:] {
		// A subcommand may be two words, written a/b (docker container/rm).
		two := what == "sub" && strings.Count(t.s, "/") == 1 && !strings.HasPrefix(t.s, "/") && !strings.HasSuffix(t.s, "/")
		if two && nameRE().MatchString(strings.Replace(t.s, "/", "", 1)) {
			out = append(out, t.s)
			continue
		}
		if !nameRE().MatchString(t.s) && t.s != "[" && t.s != "." && t.s != ":" { // the shell's [, . and :
			return nil, r.errf(t.col, "%q is not a command name", t.s)
		}
		out = append(out, t.s)
	}
	return out, nil
}

func (r *reader) program(toks []token) error {
	if err := r.finish(); err != nil {
		return err
	}
	names, err := r.names(toks, "program")
	if err != nil {
		return err
	}
	p := &Command{Names: names, Pos: fmt.Sprintf("%s:%d", r.file, r.line), Subs: map[string]*Command{}}
	r.progs = append(r.progs, p)
	r.prog, r.cur = p, p
	return nil
}

func (r *reader) sub(toks []token) error {
	names, err := r.names(toks, "sub")
	if err != nil {
		return err
	}
	s := &Command{Names: names, Pos: fmt.Sprintf("%s:%d", r.file, r.line), parent: r.prog}
	for i, n := range names {
		if prev, ok := r.prog.Subs[n]; ok {
			return r.errf(toks[i+1].col, "subcommand %s is already described at %s", n, prev.Pos)
		}
		r.prog.Subs[n] = s
		r.prog.twoWord = r.prog.twoWord || strings.Contains(n, "/")
	}
	r.prog.subList = append(r.prog.subList, s)
	r.cur = s
	return nil
}

func (r *reader) flags(toks []token) error {
	if len(toks) < 2 {
		return r.errf(toks[0].col+5, "flags needs at least one flag")
	}
	for _, t := range toks[1:] {
		switch t.s {
		case "abbrev":
			r.cur.Abbrev = true
		case "digits":
			r.cur.Digits = true
		case "posix":
			r.cur.Posix = true
		case "partial":
			r.cur.Partial = true
		case "inherit":
			r.cur.Inherit = true
		case "subabbrev":
			r.cur.SubAbbrev = true
		case "readonly":
			r.cur.ReadOnly = true
		case "dashdash":
			r.cur.DashDash = true
		case "openlong":
			r.cur.OpenLong = true
		case "negate":
			r.cur.Negate = true
		case "noopts":
			r.cur.NoOpts = true
		case "atfile":
			r.cur.AtFile = true
			r.prog.typed = true // @FILE names a file read
		case "nooptions":
			if r.cur != r.prog {
				return r.errf(t.col, "nooptions is a flag of a program, not of a subcommand")
			}
			r.cur.NoOptions = true
		case "group":
			if r.cur != r.prog {
				return r.errf(t.col, "group is a flag of a program, not of a subcommand")
			}
			r.cur.Group = true
		default:
			return r.errf(t.col, "unknown flag %q (want abbrev, digits, posix, partial, inherit, subabbrev, readonly, negate, openlong, dashdash, noopts, atfile, nooptions or group)", t.s)
		}
	}
	return nil
}

func (r *reader) effect(t token) (Effect, bool) {
	for _, n := range effectNames {
		if t.s == n.name {
			return n.e, true
		}
	}
	return 0, false
}

func (r *reader) opt(toks []token) error {
	o := &Option{Arity: map[string]Arity{}, Pos: fmt.Sprintf("%s:%d", r.file, r.line)}
	i := 1
	for ; i < len(toks) && strings.HasPrefix(toks[i].s, "-"); i++ {
		t := toks[i]
		s, a := t.s, None
		switch {
		case s == "-?" || s == "-?=":
			// The short option ? (zip -?, psql -?), not an optional value.
			s, a = "-?", map[bool]Arity{true: Required, false: None}[len(t.s) == 3]
		case strings.HasSuffix(s, "=="):
			s, a = s[:len(s)-2], Two
		case strings.HasSuffix(s, "="):
			s, a = s[:len(s)-1], Required
		case strings.HasSuffix(s, "?"):
			s, a = s[:len(s)-1], Optional
		}
		if kindOf(s) == kPattern {
			if a != None || !patternRE().MatchString(s) {
				return r.errf(t.col, "%q is not an option family (-prefix*, with no value mark)", t.s)
			}
		} else if kindOf(s) == kBad || kindOf(s) != kShort && strings.ContainsAny(s, "=?,*") || !optNameRE().MatchString(strings.TrimLeft(s, "-")) && kindOf(s) != kShort {
			return r.errf(t.col, "%q is not an option spelling (-x, --long or -word, with = or ? for a value)", t.s)
		}
		if kindOf(s) == kShort && (s[1] == '=' || s[1] == ',' || s[1] <= ' ' || s[1] > '~') {
			return r.errf(t.col, "%q is not an option spelling", t.s)
		}
		if _, dup := o.Arity[s]; dup {
			return r.errf(t.col, "option %s is listed twice on one line", s)
		}
		o.Spellings = append(o.Spellings, s)
		o.Arity[s] = a
	}
	if len(o.Spellings) == 0 {
		col := toks[0].col + 3
		if len(toks) > 1 {
			col = toks[1].col
		}
		return r.errf(col, "opt needs at least one spelling starting with -")
	}
	for ; i < len(toks); i++ {
		t := toks[i]
		if e, ok := r.effect(t); ok {
			o.Effects |= e
			continue
		}
		switch t.s {
		case "code":
			o.Code = true
			continue
		case "script":
			o.Script = true
			continue
		case "norun":
			o.NoRun = true
			continue
		case "newer":
			o.Newer = true
			continue
		case "last":
			o.Last = true
			continue
		case "printsnames":
			o.PrintsNames = true
			continue
		}
		if c, ok := strings.CutPrefix(t.s, "as="); ok {
			if !canonRE().MatchString(c) {
				return r.errf(t.col+3, "%q is not a canonical name", c)
			}
			o.Canon = strings.Split(c, ",")
			continue
		}
		return r.errf(t.col, "unknown word %q after the spellings (want exec, program, write, read, host, suffix, list, opts, at, mount, pipe, state, code, script, norun, last, printsnames, newer or as=NAME)", t.s)
	}
	if o.Canon == nil {
		o.Canon = []string{canonOf(o.Spellings)}
	}
	if err := r.clash(o, toks); err != nil {
		return err
	}
	r.cur.Options = append(r.cur.Options, o)
	return nil
}

// canonOf is an option's canonical name: its first long spelling without the dashes, else its
// first spelling as written.
func canonOf(sp []string) string {
	for _, s := range sp {
		if kindOf(s) == kLong {
			return s[2:]
		}
	}
	return sp[0]
}

// clash reports a spelling the current command already has.
func (r *reader) clash(o *Option, toks []token) error {
	for i, s := range o.Spellings {
		for _, prev := range r.cur.Options {
			if _, ok := prev.Arity[s]; ok {
				return r.errf(toks[i+1].col, "option %s is already described at %s", s, prev.Pos)
			}
		}
	}
	return nil
}

func (r *reader) env(toks []token) error {
	if len(toks) < 3 {
		return r.errf(toks[0].col, "env needs a variable and at least one effect")
	}
	if !envRE().MatchString(toks[1].s) {
		return r.errf(toks[1].col, "%q is not a variable name", toks[1].s)
	}
	var e Effect
	for _, t := range toks[2:] {
		x, ok := r.effect(t)
		if !ok {
			return r.errf(t.col, "unknown effect %q (want exec, program, write, read, host, suffix, list, opts, at, mount, pipe or state)", t.s)
		}
		e |= x
	}
	if r.cur.Env == nil {
		r.cur.Env = map[string]Effect{}
	}
	r.cur.Env[toks[1].s] = e
	return nil
}

func (r *reader) sigil(toks []token) error {
	if len(toks) < 3 || len(toks[1].s) != 1 || strings.ContainsAny(toks[1].s, "-") || !canonRE().MatchString(toks[2].s) {
		return r.errf(toks[0].col, "sigil needs one character (not -), a canonical name and perhaps effects")
	}
	if r.cur.Sigils == nil {
		r.cur.Sigils, r.cur.SigilEffects = map[byte]string{}, map[string]Effect{}
	}
	r.cur.Sigils[toks[1].s[0]] = toks[2].s
	for _, t := range toks[3:] {
		e, ok := r.effect(t)
		if !ok {
			return r.errf(t.col, "unknown effect %q", t.s)
		}
		r.cur.SigilEffects[toks[2].s] |= e
	}
	return nil
}

// roleWords says which words each role takes: a fixed choice (min and max words from
// choices), or command names (any number).
var roleWords = map[string]struct {
	choices  []string
	min, max int
	names    bool
}{
	RoleInterpreter: {names: true},
	RoleShell:       {choices: []string{"posix"}, max: 1},
	RoleRunner:      {choices: []string{"each", "argv", "remote", "stdin"}, min: 1, max: 1},
	RoleDBClient:    {choices: []string{"operands"}, max: 1},
	RoleData:        {},
	RoleLauncher:    {names: true},
	RoleLocal:       {names: true},
	RoleGlobHazard:  {},
	RoleGoals:       {},
	RoleEdits:       {},
	RoleNetwork:     {names: true},
	RoleCodeModules: {names: true},
	RoleSubscripts:  {},
	RoleShellText:   {choices: []string{"args", "file"}, min: 1, max: 1},
	RoleNoSuggest:   {},
	RoleCommands:    {names: true},
	RoleRunsNamed:   {names: true, min: 1},
	RoleSetsVars:    {},
	RoleDeclares:    {},
	RoleDestroys:    {choices: DestroyKinds, min: 1, max: 1},
	RoleExecValues:  {},
	RolePaths:       {},
	RoleWrapper:     {},
	RoleChdir:       {choices: []string{"stack"}, max: 1},
	RoleSeesCode:    {},
	RolePrintsNames: {names: true},
}

// DestroyKinds are the kinds of damage a destroys role may name: the damage budget has code
// for each.
var DestroyKinds = []string{"remove", "files", "shrink", "output", "blocks", "move", "copy", "walk", "mirror", "repo"}

// roleNames lists the roles for errors.
var roleNames = "interpreter, shell, runner, dbclient, data, launcher, local, globhazard, goals, edits, network, codemodules, " +
	"subscripts, shelltext, nosuggest, commands, runsnamed, setsvars, declares, destroys, execvalues, paths, wrapper, chdir, seescode or printsnames"

func (r *reader) role(toks []token) error {
	if len(toks) < 2 {
		return r.errf(toks[0].col+4, "role needs a name (%s)", roleNames)
	}
	if r.cur != r.prog {
		return r.errf(toks[0].col, "role is a directive of a program, not of a subcommand")
	}
	name := toks[1].s
	spec, ok := roleWords[name]
	if !ok {
		return r.errf(toks[1].col, "unknown role %q (want %s)", name, roleNames)
	}
	if _, dup := r.prog.Roles[name]; dup {
		return r.errf(toks[1].col, "role %s is stated twice", name)
	}
	if name == RolePaths {
		return r.pathsRole(toks)
	}
	if name == RoleWrapper {
		return r.wrapperRole(toks)
	}
	words := []string{}
	for _, t := range toks[2:] {
		switch {
		case spec.names && nameRE().MatchString(strings.Replace(t.s, "/", "", 1)):
		case !spec.names && slices.Contains(spec.choices, t.s):
		case spec.names:
			return r.errf(t.col, "%q is not a subcommand name", t.s)
		case len(spec.choices) == 0:
			return r.errf(t.col, "role %s takes no words", name)
		default:
			return r.errf(t.col, "unknown word %q for role %s (want %s)", t.s, name, strings.Join(spec.choices, ", "))
		}
		words = append(words, t.s)
	}
	if !spec.names && (len(words) < spec.min || len(words) > spec.max) {
		return r.errf(toks[1].col, "role %s takes %s", name, wordCount(spec.min, spec.max, spec.choices))
	}
	r.setRole(name, words)
	return nil
}

// pathsRole reads "role paths KIND [TREE-OPTION...]". The tree options are checked against
// the entry's options when the entry is finished, since they may be listed after the role.
func (r *reader) pathsRole(toks []token) error {
	if len(toks) < 3 {
		return r.errf(toks[1].col, "role paths takes one of %s", strings.Join(PathKinds, ", "))
	}
	kind := toks[2]
	if !slices.Contains(PathKinds, kind.s) {
		return r.errf(kind.col, "unknown word %q for role paths (want %s)", kind.s, strings.Join(PathKinds, ", "))
	}
	words, err := r.roleOptions([]string{kind.s}, toks[3:], kind.s == "read", "role paths "+kind.s+" takes no tree options (only read does)", &r.treeOpts)
	if err != nil {
		return err
	}
	r.setRole(RolePaths, words)
	return nil
}

// roleOptions appends to words the option spellings that end a role line, each recorded in
// *checked with its position, to be checked against the entry's options when the entry is
// finished (they may be listed after the role). allowed false refuses any, with refusal.
func (r *reader) roleOptions(words []string, toks []token, allowed bool, refusal string, checked *[]pos) ([]string, error) {
	for _, t := range toks {
		if !allowed {
			return nil, r.errf(t.col, "%s", refusal)
		}
		if len(t.s) < 2 || t.s[0] != '-' {
			return nil, r.errf(t.col, "%q is not an option spelling", t.s)
		}
		words = append(words, t.s)
		*checked = append(*checked, pos{r.line, t})
	}
	return words, nil
}

// setRole records a role's words on the entry being read.
func (r *reader) setRole(name string, words []string) {
	if r.prog.Roles == nil {
		r.prog.Roles = map[string][]string{}
	}
	r.prog.Roles[name] = words
}

// wrapperRole reads "role wrapper [safe] operand|code|guess [OPTION...]". The options are
// checked against the entry's when the entry is finished, since they may be listed after it.
func (r *reader) wrapperRole(toks []token) error {
	rest := toks[2:]
	words := []string{}
	if len(rest) > 0 && rest[0].s == "safe" {
		words, rest = append(words, "safe"), rest[1:]
	}
	if len(rest) == 0 || !slices.Contains(WrapperStarts, rest[0].s) {
		col := toks[1].col
		if len(rest) > 0 {
			col = rest[0].col
		}
		return r.errf(col, "role wrapper takes [safe] then one of %s", strings.Join(WrapperStarts, ", "))
	}
	start := rest[0].s
	words, err := r.roleOptions(append(words, start), rest[1:], start == "operand", "role wrapper "+start+" takes no options (only operand does)", &r.peeled)
	if err != nil {
		return err
	}
	r.setRole(RoleWrapper, words)
	return nil
}

// checkPeeled: each option of a wrapper role is a spelling of one of the entry's options that
// takes a value or none, so that the peel reads it as the entry does and a misspelt one fails
// here instead of never matching.
func (r *reader) checkPeeled() error {
	defer func() { r.peeled = r.peeled[:0] }()
	for _, p := range r.peeled {
		_, ar, ok := r.prog.OptionSpelled(p.tok.s)
		switch {
		case !ok:
			return &ParseError{File: r.file, Line: p.line, Col: p.tok.col, Msg: fmt.Sprintf("option %s of role wrapper is not an option of %s", p.tok.s, r.prog.Names[0])}
		case ar != None && ar != Required:
			return &ParseError{File: r.file, Line: p.line, Col: p.tok.col, Msg: fmt.Sprintf("option %s of role wrapper takes an optional or a second value, which the peel does not read", p.tok.s)}
		}
	}
	return nil
}

// checkTreeOpts: each tree option of a paths role is a spelling of one of the entry's
// options, so that a misspelt one fails here instead of never matching.
func (r *reader) checkTreeOpts() error {
	defer func() { r.treeOpts = r.treeOpts[:0] }()
	for _, p := range r.treeOpts {
		if _, _, ok := r.prog.OptionSpelled(p.tok.s); !ok {
			return &ParseError{File: r.file, Line: p.line, Col: p.tok.col, Msg: fmt.Sprintf("tree option %s of role paths is not an option of %s", p.tok.s, r.prog.Names[0])}
		}
	}
	return nil
}

func wordCount(lo, hi int, choices []string) string {
	if lo == hi {
		return "one of " + strings.Join(choices, ", ")
	}
	return "at most one of " + strings.Join(choices, ", ")
}

// finish indexes the entry just read and checks it as a whole.
func (r *reader) finish() error {
	if r.prog == nil {
		return nil
	}
	if err := r.checkTreeOpts(); err != nil {
		return err
	}
	if err := r.checkPeeled(); err != nil {
		return err
	}
	r.prog.index()
	for _, s := range r.prog.subList {
		s.index()
	}
	for _, c := range append([]*Command{r.prog}, r.prog.subList...) {
		for _, o := range c.Options {
			r.prog.typed = r.prog.typed || o.Effects.Names()
		}
	}
	r.prog, r.cur = nil, nil
	return nil
}
