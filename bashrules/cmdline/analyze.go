package cmdline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Limits on what the walk takes on. Past them the analysis says it is truncated, or fails.
const (
	// MaxCommandLength is the longest command string that can be allowed.
	MaxCommandLength = 10000
	// MaxSubcommands is the most simple commands one allowed command may hold.
	MaxSubcommands = 50
	// MaxParseLength is the longest command string parsed at all; longer ones ask unseen.
	MaxParseLength = 200000
	// maxCommands stops the walk of enormous scripts.
	maxCommands = 2000
	// maxDepth bounds nesting: statements within statements, scripts within scripts.
	maxDepth = 100
	// maxArgv bounds the words a brace expansion may produce for one command.
	maxArgv = 512
)

// Kind says what sort of command a [Command] is.
type Kind uint8

const (
	// KindCall is a simple command: a program, builtin or function run with arguments.
	KindCall Kind = iota
	// KindAssign is a statement made only of assignments (x=1), or a for loop's variable.
	KindAssign
	// KindDecl is declare, export, local, readonly, typeset or nameref.
	KindDecl
	// KindArith is (( ... )) or let.
	KindArith
	// KindTest is [[ ... ]].
	KindTest
	// KindFuncCall calls a function defined earlier in the same script; its body is
	// analysed where it is defined.
	KindFuncCall
)

var kindNames = [...]string{"command", "assignment", "declaration", "arithmetic", "test", "function call"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Assignment is a variable assignment: a prefix of a command (FOO=1 cmd), a statement of its
// own, or an argument of declare/export.
type Assignment struct {
	Name  string
	Value Word
	// Indexed marks a[i]=x, Array a=(...); both set array elements.
	Indexed, Array bool
	Src            string
}

// RedirKind classifies a redirection.
type RedirKind uint8

const (
	RedirOut        RedirKind = iota // >, >>, >|, &>, &>>, >&file: writes a file
	RedirIn                          // <: reads a file
	RedirInOut                       // <>: reads and writes a file
	RedirDup                         // >&2, 2>&1, <&0, >&-: duplicates or closes a descriptor
	RedirHeredoc                     // <<, <<-
	RedirHereString                  // <<<
)

// Redirect is one redirection of a statement.
type Redirect struct {
	Op     string
	Fd     string
	Kind   RedirKind
	Target Word
	// Body is the here-document's text.
	Body Word
	Where
}

// Command is one command the analysis found.
type Command struct {
	Kind Kind
	// Text is the command as written, its words joined by single spaces; redirections are
	// left out.
	Text string
	// Words are the words as written; Argv the words after brace expansion (nil when the
	// expansion is too large to follow).
	Words, Argv []Word
	Assigns     []Assignment
	// Redirects are the redirections of the statement this command is.
	Redirects []*Redirect
	// Parent is the command that runs this one (bash -c, sudo, xargs, find -exec, ...), Via
	// says how. Transparent marks a parent that only runs its children: allowing every child
	// allows it.
	Parent      *Command
	Via         string
	Transparent bool
	// Speculative marks commands guessed from inline interpreter code or from a wrapper
	// whose options were not understood: only deny and ask rules are matched against them.
	Speculative bool
	// ExtraArgs marks a command that receives more arguments at run time (xargs).
	ExtraArgs bool
	// Roots are the start paths that find -exec's {} stands for.
	Roots []Word
	// OtherDir marks a command run in a directory or root the analysis cannot follow
	// (env -C, chroot).
	OtherDir bool
	// Nested says where the command sits: "" at the top, or "$(...)", "subshell", ...
	Nested string
	// Issues say why the command cannot be fully known.
	Issues []string
	Where
	// ReadsStdin marks a shell that reads the script to run from its standard input.
	ReadsStdin bool
	// PipedFrom is the simple command whose output a simple command reads through a pipe
	// (a in a | b), when both are simple commands.
	PipedFrom *Command
	// Index is the command's place in its Analysis's Commands, where a checker may keep what
	// it found about it.
	Index int
}

// Where places a command or redirect for working-directory tracking.
type Where struct {
	// Start is the offset in the source of the statement the command belongs to.
	Start int
	// Guards are commands that have succeeded whenever this one runs (a && b: a guards b).
	Guards   []*Command
	Subshell bool // runs in a subshell, a pipeline or the background
	Loop     bool
	Fn       bool // inside a function body
	Script   bool // inside a script run by another command (bash -c, eval)
	// ForVar is the variable of the innermost for loop over words around this one (its outer
	// ones linked from it): the damage count applies a loop's body once per value.
	ForVar *ForVar
}

// Name returns the command name (argv[0]) when it is known.
func (c *Command) Name() (string, bool) {
	if len(c.Argv) == 0 || !c.Argv[0].Known {
		return "", false
	}
	return c.Argv[0].Value, true
}

// HasPlaceholders reports whether any word is filled in at run time.
func (c *Command) HasPlaceholders() bool {
	for _, w := range c.Argv {
		if w.Placeholder {
			return true
		}
	}
	return false
}

// Analysis is what can be learned about a command line without running it.
type Analysis struct {
	Source string
	// Commands are all commands, in the order they appear, nested and wrapped ones included.
	Commands []*Command
	// Redirects are all redirections, of simple and compound statements alike.
	Redirects []*Redirect
	// Issues are constructs that make the whole command line uncertain.
	Issues []string
	// Truncated reports that the walk stopped early (too many commands or too deep).
	Truncated bool
}

// ErrTooLong is returned by Analyze for command lines it does not parse.
var ErrTooLong = errors.New("command is too long to analyse")

// Hooks are what a caller adds to the walk: the commands a program runs that only the caller's
// knowledge finds. A zero Hooks adds nothing.
type Hooks struct {
	// Runs returns the command lines a program (run as name, with args) runs on its behalf —
	// a runner's command lines, a database client's shell escapes — and whether it is such a
	// program. The walk records the lines as speculative children of c.
	Runs func(c *Command, name string, args []Word) (lines []string, ok bool)
}

func (h *Hooks) runs(c *Command, name string, args []Word) ([]string, bool) {
	if h == nil || h.Runs == nil {
		return nil, false
	}
	return h.Runs(c, name, args)
}

// Analyze parses a command line (bash syntax) and lists every command in it. It runs nothing
// and reads no files.
func Analyze(command string, h *Hooks) (*Analysis, error) {
	a := new(Analysis)
	if err := AnalyzeInto(a, command, &Chunks{}, h); err != nil {
		return nil, err
	}
	return a, nil
}

// AnalyzeInto is Analyze into a, cutting the walk's commands from ch; it leaves in ch the
// chunks it ends with. What a held before is gone, and so is every analysis made before with
// ch: their commands are overwritten.
func AnalyzeInto(a *Analysis, command string, ch *Chunks, h *Hooks) error {
	if len(command) > MaxParseLength {
		return ErrTooLong
	}
	f, err := Parse(command)
	if err != nil {
		return err
	}
	walkInto(a, command, f, ch, h)
	return nil
}

// AnalyzeFile walks a file Parse returned for command.
func AnalyzeFile(command string, f *syntax.File, h *Hooks) *Analysis {
	a := new(Analysis)
	walkInto(a, command, f, &Chunks{}, h)
	return a
}

// Chunks are the chunks a walker cuts commands, lists of commands and words from, and the
// first array of an analysis's commands. A checker that is reused hands them from one walk to
// the next, so that a command line of a few commands allocates none of them.
type Chunks struct {
	cmds     []Command
	ones     []*Command
	words    []Word
	commands []*Command
}

// walkInto walks f, parsed from command, into a, cutting from ch's chunks.
func walkInto(a *Analysis, command string, f *syntax.File, ch *Chunks, h *Hooks) {
	commands := ch.commands[:0]
	if cap(commands) == 0 {
		commands = make([]*Command, 0, 8)
	}
	*a = Analysis{Source: command, Commands: commands}
	w := &walker{a: a, src: command, hooks: h, cmds: ch.cmds[:0], ones: ch.ones[:0], wordChunk: ch.words[:0]}
	w.stmts(f.Stmts, scope{})
	*ch = Chunks{cmds: w.cmds, ones: w.ones, words: w.wordChunk, commands: a.Commands}
}

// parsers are reused: a Parser is a large struct (its read buffer is inside), and Parse
// resets all of its state, so one parser serves any number of commands, one at a time.
var parsers = sync.Pool{New: func() any {
	return &pooledParser{p: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))}
}}

// pooledParser keeps a reader with its parser, which Parse reads the source through.
type pooledParser struct {
	p *syntax.Parser
	r strings.Reader
}

// Parse parses src (bash syntax) with a pooled parser. It is the only shell parser of the
// check: two parsers that could disagree on a line would be a way past it (issue 26 removed
// the second).
func Parse(src string) (*syntax.File, error) {
	pp := parsers.Get().(*pooledParser)
	pp.r.Reset(src)
	f, err := pp.p.Parse(&pp.r, "")
	pp.r.Reset("") // the pool does not keep the command alive
	parsers.Put(pp)
	return f, err
}

type walker struct {
	a     *Analysis
	src   string
	hooks *Hooks
	funcs map[string]int // function name → position of its definition (nil until one is)
	depth int
	// cmds and ones hand out commands and one-command lists from chunks: a command line
	// has a handful of each, and one allocation for several is cheaper than one for each.
	cmds []Command
	ones []*Command
	// wordChunk hands out the words of simple commands the same way.
	wordChunk []Word
}

// alloc hands out a command from the chunk; its callers set the whole command, so a reused
// chunk's earlier contents never show.
func (w *walker) alloc() *Command {
	if len(w.cmds) == cap(w.cmds) {
		w.cmds = make([]Command, 0, 8)
	}
	w.cmds = w.cmds[:len(w.cmds)+1]
	return &w.cmds[len(w.cmds)-1]
}

// words returns n zero words for one command, cut from a chunk shared with other commands
// and capped at n, so that appending to them (or to a tail of them) never writes into another
// command's words.
func (w *walker) words(n int) []Word {
	if n > 16 {
		return make([]Word, n)
	}
	if len(w.wordChunk)+n > cap(w.wordChunk) {
		// The first chunk is sized for the source's space-separated fields, which are about
		// its words; later ones (the guess fell short) for 16 more.
		size := 16
		if cap(w.wordChunk) == 0 {
			size = min(max(fields(w.src), n), 64)
		}
		w.wordChunk = make([]Word, 0, size)
	}
	i := len(w.wordChunk)
	w.wordChunk = w.wordChunk[:i+n]
	out := w.wordChunk[i : i+n : i+n]
	clear(out) // a reused chunk holds an earlier walk's words
	return out
}

// fields counts the runs of characters other than space, tab and newline in s.
func fields(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		sep := s[i] == ' ' || s[i] == '\t' || s[i] == '\n'
		if !sep && !in {
			n++
		}
		in = !sep
	}
	return n
}

// one returns the list of c alone. Callers only read such lists (or copy them before
// appending: its capacity is 1).
func (w *walker) one(c *Command) []*Command {
	l := w.list(1)
	l[0] = c
	return l
}

// concat returns a followed by b. The lists of commands that succeeded (and the guards made of
// them) are only read once made, so a list is shared rather than copied when the other is
// empty; every list is capped, so an append to one never writes into another.
func (w *walker) concat(a, b []*Command) []*Command {
	switch {
	case len(a) == 0:
		return b[:len(b):len(b)]
	case len(b) == 0:
		return a[:len(a):len(a)]
	}
	l := w.list(len(a) + len(b))
	copy(l, a)
	copy(l[len(a):], b)
	return l
}

// list returns a list of n commands, cut from the chunk one and concat share and capped at n.
func (w *walker) list(n int) []*Command {
	if n > 8 {
		return make([]*Command, n)
	}
	if len(w.ones)+n > cap(w.ones) {
		w.ones = make([]*Command, 0, 8)
	}
	i := len(w.ones)
	w.ones = w.ones[:i+n]
	return w.ones[i : i+n : i+n]
}

type scope struct {
	Where
	nested      string
	parent      *Command
	via         string
	speculative bool
	fixed       bool // commands of an inner script all take the parent's position
	otherDir    bool
}

func (w *walker) issue(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !slices.Contains(w.a.Issues, msg) {
		w.a.Issues = append(w.a.Issues, msg)
	}
}

func (w *walker) enter() bool {
	w.depth++
	if w.depth > maxDepth || len(w.a.Commands) >= maxCommands {
		w.a.Truncated = true
		return false
	}
	return true
}

func (w *walker) leave() { w.depth-- }

func (w *walker) at(n syntax.Node, sc scope) Where {
	wh := sc.Where
	if !sc.fixed {
		wh.Start = int(n.Pos().Offset())
	}
	return wh
}

func (w *walker) add(c *Command) {
	c.Index = len(w.a.Commands)
	w.a.Commands = append(w.a.Commands, c)
}

func (w *walker) newCommand(kind Kind, n syntax.Node, sc scope) *Command {
	c := w.alloc()
	*c = Command{Kind: kind, Parent: sc.parent, Via: sc.via, Speculative: sc.speculative,
		Nested: sc.nested, OtherDir: sc.otherDir, Where: w.at(n, sc)}
	return c
}

// stmts walks a statement list and returns the commands that have succeeded when the list
// has (those of its last statement).
func (w *walker) stmts(list []*syntax.Stmt, sc scope) []*Command {
	var ok []*Command
	for _, s := range list {
		ok = w.stmt(s, sc)
	}
	return ok
}

func (w *walker) stmt(s *syntax.Stmt, sc scope) []*Command {
	if !w.enter() {
		return nil
	}
	defer w.leave()
	if s.Background || s.Coprocess || s.Disown {
		sc.Subshell = true
	}
	redirs := w.redirects(s.Redirs, sc)
	var ok []*Command
	switch x := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		if c := w.call(x, sc, redirs); c != nil {
			ok = w.one(c)
		}
	case *syntax.BinaryCmd:
		ok = w.binaryCmd(x, sc)
	case *syntax.Subshell:
		w.subshell(x, sc)
	case *syntax.Block:
		ok = w.stmts(x.Stmts, sc)
	case *syntax.IfClause:
		w.ifClause(x, sc)
	case *syntax.WhileClause:
		w.whileClause(x, sc)
	case *syntax.ForClause:
		w.forClause(x, sc)
	case *syntax.CaseClause:
		w.caseClause(x, sc)
	case *syntax.FuncDecl:
		w.funcDecl(x, sc)
	case *syntax.ArithmCmd:
		w.arith(x.X, sc)
		w.pseudo(KindArith, x, sc, redirs)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			w.arith(e, sc)
		}
		w.pseudo(KindArith, x, sc, redirs)
	case *syntax.TestClause:
		w.test(x.X, sc)
		w.pseudo(KindTest, x, sc, redirs)
	case *syntax.DeclClause:
		w.decl(x, sc, redirs)
	case *syntax.TimeClause:
		if x.Stmt != nil {
			ok = w.stmt(x.Stmt, sc)
			break
		}
		// A bare time (time; ls) times nothing, but it is still the command time, which a
		// rule on time names (FuzzEntryCommands found it left out).
		c := w.newCommand(KindCall, x, sc)
		c.Text = srcOf(w.src, x)
		c.Argv = []Word{{Src: "time", Value: "time", Known: true}}
		if x.PosixFormat {
			c.Argv = append(c.Argv, Word{Src: "-p", Value: "-p", Known: true})
		}
		c.Words = c.Argv
		c.Redirects = redirs
		w.add(c)
		ok = []*Command{c}
	case *syntax.CoprocClause:
		w.coprocClause(x, sc)
	case *syntax.TestDecl:
		w.testDecl(x, sc)
	default:
		w.issue("unsupported shell construct %T", x)
	}
	if s.Negated {
		ok = nil
	}
	return ok
}

// binaryCmd walks a && b, a || b and a pipeline. Only after a && b is known what has
// succeeded: a guards b, and both have run.
func (w *walker) binaryCmd(x *syntax.BinaryCmd, sc scope) []*Command {
	switch x.Op {
	case syntax.AndStmt:
		left := w.stmt(x.X, sc)
		right := sc
		right.Guards = w.concat(sc.Guards, left)
		return w.concat(left, w.stmt(x.Y, right))
	case syntax.OrStmt:
		w.stmt(x.X, sc)
		w.stmt(x.Y, sc)
	default: // | and |&: every part runs in a subshell
		sub := sc
		sub.Subshell = true
		first := len(w.a.Commands)
		w.stmt(x.X, sub)
		mid := len(w.a.Commands)
		w.stmt(x.Y, sub)
		w.pipedScript(x, first, mid, sub)
		w.linkPipe(x, first, mid, sub)
	}
	return nil
}

func (w *walker) subshell(x *syntax.Subshell, sc scope) {
	sub := sc
	sub.Subshell = true
	sub.nested = nest(sc.nested, "subshell")
	w.stmts(x.Stmts, sub)
}

func (w *walker) whileClause(x *syntax.WhileClause, sc scope) {
	loop := sc
	loop.Loop = true
	loop.nested = nest(sc.nested, "loop")
	w.stmts(x.Cond, loop)
	w.stmts(x.Do, loop)
}

func (w *walker) caseClause(x *syntax.CaseClause, sc scope) {
	w.word(x.Word, sc)
	for _, it := range x.Items {
		for _, p := range it.Patterns {
			w.word(p, sc)
		}
		in := sc
		in.nested = nest(sc.nested, "case")
		w.stmts(it.Stmts, in)
	}
}

func (w *walker) coprocClause(x *syntax.CoprocClause, sc scope) {
	sub := sc
	sub.Subshell = true
	if x.Name != nil {
		w.word(x.Name, sc)
	}
	w.stmt(x.Stmt, sub)
}

// testDecl walks a Bats test declaration, whose body runs like a function's.
func (w *walker) testDecl(x *syntax.TestDecl, sc scope) {
	w.word(x.Description, sc)
	body := sc
	body.Fn = true
	w.stmt(x.Body, body)
}

func nest(outer, inner string) string {
	if outer == "" {
		return inner
	}
	return outer + " > " + inner
}

func (w *walker) ifClause(x *syntax.IfClause, sc scope) {
	for c := x; c != nil; c = c.Else {
		in := sc
		in.nested = nest(sc.nested, "if")
		ok := w.stmts(c.Cond, in)
		then := in
		then.Guards = w.concat(sc.Guards, ok)
		w.stmts(c.Then, then)
	}
}

func (w *walker) forClause(x *syntax.ForClause, sc scope) {
	loop := sc
	loop.Loop = true
	loop.nested = nest(sc.nested, "loop")
	switch l := x.Loop.(type) {
	case *syntax.WordIter:
		for _, it := range l.Items {
			w.word(it, sc)
		}
		// The loop variable is assigned values the analysis does not follow, except the
		// damage count, which applies the body to each (forVar).
		c := w.newCommand(KindAssign, l, sc)
		c.Text = "for " + l.Name.Value
		c.Assigns = []Assignment{{Name: l.Name.Value, Src: l.Name.Value, Value: Word{Why: "loop variable"}}}
		w.add(c)
		loop.ForVar = w.forVar(l, c, sc.ForVar)
	case *syntax.CStyleLoop:
		for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if e != nil {
				w.arith(e, sc)
			}
		}
		w.pseudo(KindArith, l, sc, nil)
	}
	w.stmts(x.Do, loop)
}

func (w *walker) funcDecl(x *syntax.FuncDecl, sc scope) {
	names := x.Names
	if x.Name != nil {
		names = append([]*syntax.Lit{x.Name}, names...)
	}
	body := sc
	body.Fn = true
	label := "function"
	for _, n := range names {
		// A function defined in a subshell does not exist after it; calls to that name
		// elsewhere run whatever command has it.
		if _, dup := w.funcs[n.Value]; !dup && !sc.Subshell && !sc.fixed {
			if w.funcs == nil {
				w.funcs = map[string]int{}
			}
			w.funcs[n.Value] = int(x.Pos().Offset())
		}
		label = "function " + n.Value
	}
	body.nested = nest(sc.nested, label)
	w.stmt(x.Body, body)
}

func (w *walker) pseudo(kind Kind, n syntax.Node, sc scope, redirs []*Redirect) *Command {
	c := w.newCommand(kind, n, sc)
	c.Text = srcOf(w.src, n)
	c.Redirects = redirs
	w.add(c)
	return c
}

func (w *walker) decl(x *syntax.DeclClause, sc scope, redirs []*Redirect) {
	c := w.newCommand(KindDecl, x, sc)
	c.Redirects = redirs
	c.Words = []Word{{Src: x.Variant.Value, Value: x.Variant.Value, Known: true}}
	parts := []string{x.Variant.Value}
	for _, as := range x.Args {
		w.assignWalk(as, sc)
		a := w.assignment(as)
		parts = append(parts, a.Src)
		if as.Naked && as.Name == nil && as.Value != nil {
			// An option such as -x, or a word the shell expands at run time into names or
			// assignments.
			c.Words = append(c.Words, a.Value)
			continue
		}
		c.Words = append(c.Words, Word{Src: a.Src, Value: a.Src, Known: a.Value.Known || !as.Naked})
		c.Assigns = append(c.Assigns, a)
	}
	c.Argv = c.Words
	c.Text = strings.Join(parts, " ")
	w.add(c)
}

func (w *walker) assignment(as *syntax.Assign) Assignment {
	a := Assignment{Src: srcOf(w.src, as), Indexed: as.Index != nil, Array: as.Array != nil}
	if as.Name != nil {
		a.Name = as.Name.Value
	}
	switch {
	case as.Value != nil:
		a.Value = evalWord(w.src, as.Value)
	case as.Array != nil:
		a.Value = Word{Src: srcOf(w.src, as.Array), Why: "array value"}
	default:
		a.Value = Word{Known: true}
	}
	return a
}

// assignWalk looks inside an assignment for commands and for arithmetic on variables.
func (w *walker) assignWalk(as *syntax.Assign, sc scope) {
	if as.Index != nil {
		w.arith(as.Index, sc)
	}
	if as.Value != nil {
		w.word(as.Value, sc)
	}
	if as.Array != nil {
		for _, el := range as.Array.Elems {
			if el.Index != nil {
				w.arith(el.Index, sc)
			}
			if el.Value != nil {
				w.word(el.Value, sc)
			}
		}
	}
}

func (w *walker) redirects(rs []*syntax.Redirect, sc scope) []*Redirect {
	var out []*Redirect
	for _, r := range rs {
		rd := &Redirect{Op: r.Op.String(), Where: w.at(r, sc)}
		if r.N != nil {
			rd.Fd = r.N.Value
		}
		if r.Word != nil {
			w.word(r.Word, sc)
			rd.Target = evalWord(w.src, r.Word)
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
			rd.Kind = RedirOut
		case syntax.RdrIn:
			rd.Kind = RedirIn
		case syntax.RdrInOut:
			rd.Kind = RedirInOut
		case syntax.DplIn, syntax.DplOut:
			rd.Kind = RedirDup
			// >&file (no descriptor before it) writes a file like &>file.
			if t := rd.Target; r.Op == syntax.DplOut && !(t.Known && isFdWord(t.Value)) {
				rd.Kind = RedirOut
			}
		case syntax.Hdoc, syntax.DashHdoc:
			rd.Kind = RedirHeredoc
			if r.Hdoc != nil {
				w.word(r.Hdoc, sc)
				rd.Body = evalHeredoc(w.src, r.Word, r.Hdoc)
			} else {
				rd.Body = Word{Known: true}
			}
		case syntax.WordHdoc:
			rd.Kind = RedirHereString
			rd.Body = rd.Target
		default:
			rd.Kind = RedirOut
		}
		w.a.Redirects = append(w.a.Redirects, rd)
		out = append(out, rd)
	}
	return out
}

func isFdWord(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// evalHeredoc reads a here-document's text. With a quoted delimiter the text is literal; with
// an unquoted one a backslash quotes $, `, \ and newline and expansions make it unknown.
func evalHeredoc(src string, delim, body *syntax.Word) Word {
	quoted := false
	if delim != nil {
		for _, p := range delim.Parts {
			if l, ok := p.(*syntax.Lit); !ok || strings.ContainsRune(l.Value, '\\') {
				quoted = true
			}
		}
	}
	out := Word{Src: srcOf(src, body), Known: true}
	var b strings.Builder
	for _, p := range body.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			out.Known, out.Why = false, partName(p)+" in a here-document"
			return out
		}
		if quoted {
			b.WriteString(l.Value)
		} else {
			unquoteDbl(&b, strings.ReplaceAll(l.Value, `\"`, `\\"`))
		}
	}
	out.Value = b.String()
	return out
}
