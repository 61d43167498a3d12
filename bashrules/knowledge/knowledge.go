package knowledge

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reinsdev/reins/built"
)

// Arity is how an option takes a value.
type Arity uint8

const (
	None     Arity = iota // no value
	Required              // attached (--x=v, -xv) or the next word
	Optional              // attached only (--x=v, -xv)
	Two                   // the next two words: a name, then its value (jq --arg NAME VALUE)
)

// Effect is what an option or environment variable does that a permission check must see.
type Effect uint16

const (
	Exec    Effect = 1 << iota // runs code or a command
	Program                    // names a program or helper that is run
	Write                      // writes or removes a file (the one its value names, if any)
	Read                       // reads the file its value names
	// Host: the value is a host or URL the program connects to (curl --proxy, ssh -J).
	Host
	// Suffix: the value becomes part of the names of files the program writes — a backup
	// suffix (cp --suffix, sed -i.bak) appended to each file it changes.
	Suffix
	// List: the value names a file that lists more files (tar -T, rsync --files-from): the
	// file is read, and the files it names are ones the analysis cannot see.
	List
	// Options: the value names a file of more options for the program (curl -K, wget
	// --config), which the analysis does not see.
	Options
	// At: a value @FILE reads FILE (curl -d @body.json); any other value is data.
	At
	// Mount: the value binds a host path into a container, which may read and write it:
	// SRC:DST[:opts] (docker -v) or type=bind,source=SRC,... (--mount); a name that is no
	// path is a volume.
	Mount
	// Pipe: a value |COMMAND is a command line the program runs through a shell (psql -o
	// '|gzip'); any other value is a file it writes.
	Pipe
	// State: the option changes the system beyond files (date --set sets the clock); its
	// value is no file name.
	State
)

// Dangerous reports whether the effect runs something the analysis does not see, or
// options it does not see.
func (e Effect) Dangerous() bool { return e&(Exec|Program|Options) != 0 }

// Names reports whether the option's value becomes a file name the program reads or writes.
func (e Effect) Names() bool { return e&(Write|Read|Suffix|List|At|Mount) != 0 }

var effectNames = []struct {
	e    Effect
	name string
}{{Exec, "exec"}, {Program, "program"}, {Write, "write"}, {Read, "read"}, {Host, "host"}, {Suffix, "suffix"}, {List, "list"},
	{Options, "opts"}, {At, "at"}, {Mount, "mount"}, {Pipe, "pipe"}, {State, "state"}}

func (e Effect) String() string {
	var out []string
	for _, n := range effectNames {
		if e&n.e != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, ",")
}

// Option is one option of a command, with every spelling the command accepts for it.
type Option struct {
	Canon     []string // canonical names (usually one: the first long spelling)
	Spellings []string // as written in the entry, without the arity suffix
	Arity     map[string]Arity
	Effects   Effect
	// Code, Script and NoRun are facts for the check of code the analysis cannot see, not
	// effects: the value of a Code option is program text the program runs (python -c), of a
	// Script option a command line it runs (hyperfine --prepare); after a NoRun option it
	// runs no command (ssh -N). An allow rule for the program covers them as it covers any
	// option it knows.
	Code, Script, NoRun bool
	// PrintsNames: given this option, the command's output is file names (grep -l, git diff
	// --name-only).
	PrintsNames bool
	// Newer: the option is newer than the program's version in Debian stable, so the test
	// against the installed program's help does not require it.
	Newer bool
	// Negation: the option is the --no- form of one the entry lists (flags negate), not a
	// line of the entry.
	Negation bool
	// Last: the program reads no options after this one (and its value): python -c and -m,
	// whose later words are the program's arguments.
	Last bool
	Pos  string // file:line of the entry
}

// Command is a program or one of its subcommands.
type Command struct {
	Names     []string
	Pos       string
	Abbrev    bool // long options by unique prefix
	Digits    bool // -NUM
	Posix     bool // options end at the first operand
	Partial   bool // the option list is not complete
	Inherit   bool // the program's options also follow the subcommand
	SubAbbrev bool
	// DashDash: every single-dash word option may also be written with two dashes
	// (sqlite3 -batch, --batch).
	DashDash bool
	// OpenLong: a long option the entry does not list is a setting of the program's own,
	// which does nothing a check must see (npm's configuration keys: --watch is the key
	// watch); one that abbreviates a listed option is that option.
	OpenLong bool
	// Negate: every long option --X may be given as --no-X, and one named --no-X as --X
	// (git's parse-options); the negation does nothing a check must see.
	Negate bool
	// Help are the argument lists that make the program print its options, for the test
	// that checks the entry against it (default --help); [none] when no output lists them.
	Help [][]string
	// HelpSub is the program's argument list that prints a subcommand's options, with {}
	// for the subcommand (git: {} -h; go: help {}); default {} --help.
	HelpSub []string
	// HelpSkip are spellings the help text shows that are not options of this command.
	HelpSkip []string
	// HelpOperands are options whose help shows words after them that are not their value:
	// the operands of the mode they select (git config --get-urlmatch NAME URL), or another
	// option's value under the same spelling.
	HelpOperands []string
	// Version is what prints the program's version, for the test (default --version).
	Version []string
	// From says where the option list was read and from which version (GNU coreutils 9.1
	// --help), so that a reviewer can read it again.
	From string
	// NoOpts: the command reads no options: every word is an operand (test, expr).
	NoOpts bool
	// AtFile: an argument @FILE is replaced by the arguments FILE holds (gcc, binutils):
	// options the analysis cannot see.
	AtFile bool
	// Like names the program whose options this one also takes (npx takes npm's).
	Like string
	// Aliases maps an operand's other spellings to its canonical one (kubectl's resource
	// names: po and pod are pods), for deny and ask rules.
	Aliases map[string]string
	// ReadOnly: the program is in the read-only set, allowed without a rule when its options
	// keep it so; bashrules adds the code registered for its names, if any.
	ReadOnly bool
	// NoOptions: the entry lists only what its roles need, not the program's options, so it
	// is no option table: Lookup does not return it, Facts does.
	NoOptions bool
	// Group: the entry's names are different programs that share its facts (uv, poetry and
	// pipx are launchers alike), not one program's names; a rule for one is not a rule for the
	// others.
	Group bool
	// Roles are what the program does with its arguments beyond its options (see Role*),
	// each with its words.
	Roles   map[string][]string
	Options []*Option
	Env     map[string]Effect
	Sigils  map[byte]string
	// SigilEffects are what an operand with a sigil does, by the sigil's canonical name
	// (vim +CMD runs an Ex command).
	SigilEffects map[string]Effect
	Subs         map[string]*Command // by every name of every subcommand
	subList      []*Command
	parent       *Command
	twoWord      bool // some subcommand is two words (docker container rm)
	typed        bool // some option of the program or its subcommands names a file

	short map[byte]*Option
	long  map[string]*Option
	words map[string]*Option // single-dash long spellings, with their dash
	longs []string           // long names, sorted, for abbreviations
	// patterns are the option families, longest prefix first.
	patterns []pattern
}

// HasTypedValues reports whether some option of the program or of its subcommands takes a
// value that names a file (Effect.Names), so that a caller may skip reading it otherwise.
func (c *Command) HasTypedValues() bool { return c.typed }

// Subcommands lists the subcommands once each, in the order of the entry.
func (c *Command) Subcommands() []*Command { return c.subList }

// Name is the command's first name, "prog sub" for a subcommand.
func (c *Command) Name() string {
	if c.parent != nil {
		return c.parent.Names[0] + " " + c.Names[0]
	}
	return c.Names[0]
}

// The roles an entry may state, with the words each takes.
const (
	// RoleInterpreter runs program text in another language: its Code options' values, the
	// operands of the subcommands named (deno eval), or its standard input.
	RoleInterpreter = "interpreter"
	// RoleShell runs a shell script (-c, a file or its standard input); "posix" when the
	// bash parser reads its scripts faithfully.
	RoleShell = "shell"
	// RoleRunner runs its arguments as commands: "each" operand is a command line, from
	// the first operand the words are a command and its arguments ("argv"), the operands
	// after a host are a command line a "remote" shell runs, or it runs what it reads on
	// "stdin".
	RoleRunner = "runner"
	// RoleDBClient runs database statements, which may run programs or read files.
	RoleDBClient = "dbclient"
	// RoleData: the operands are data (a message, a package name, a target), never a command.
	RoleData = "data"
	// RoleLauncher runs the words after the subcommands named (npx x; uv run x) as a
	// command; with no words, every word after its options.
	RoleLauncher = "launcher"
	// RoleLocal: the subcommands named reach no network; with no words, the program's own
	// work is local (a wrapper: what it runs is judged on its own).
	RoleLocal = "local"
	// RoleGlobHazard: the program has options that write, remove or run, so a file named
	// like one matters when a pattern among its arguments expands to it.
	RoleGlobHazard = "globhazard"
	// RoleGoals: every operand that is not an assignment (NAME=value) is a goal the program
	// makes, wherever it stands (make deploy, make -j4 FOO=1 deploy).
	RoleGoals = "goals"
	// RoleEdits: in acceptEdits mode the program is allowed once every file it writes passes
	// the write check (mkdir, touch, cp, mv, rm, sed).
	RoleEdits = "edits"
	// RoleNetwork: the program connects to other hosts; no check limits where.
	RoleNetwork = "network"
	// RoleCodeModules (an interpreter's): the modules that, run with -m, run their arguments,
	// their standard input or another program as code (python -m timeit, -m pdb).
	RoleCodeModules = "codemodules"
	// RoleSubscripts (a shell builtin's): it evaluates array subscripts in the names it is
	// given, which runs any command substitution in them (printf -v 'a[$(cmd)]').
	RoleSubscripts = "subscripts"
	// RoleShellText (a shell builtin's): it runs shell text, its arguments ("args": eval)
	// or a script file ("file": source, .).
	RoleShellText = "shelltext"
	// RoleNoSuggest: no allow rule is suggested for the program, which would allow anything
	// (shells, wrappers, su, ssh).
	RoleNoSuggest = "nosuggest"
	// RoleCommands: the first argument, when it is a name of one of the entry's subcommands,
	// is the program's own command and never a file (go vet, cargo build); after the
	// subcommands named, the next word is a script's name, no file either (npm run-script).
	RoleCommands = "commands"
	// RoleRunsNamed: after the subcommands named, the next word names what runs (npm run
	// SCRIPT, docker exec CONTAINER), so a rule suggested for such a call is the call itself.
	RoleRunsNamed = "runsnamed"
	// RoleSetsVars (a shell builtin's): it sets the variables its arguments name (read x,
	// printf -v x, getopts o x), so a loop's variable named there changes.
	RoleSetsVars = "setsvars"
	// RoleDeclares (a shell builtin's): a plain declaration (declare, export, local): its
	// words are names, assignments and attribute options.
	RoleDeclares = "declares"
	// RoleDestroys: the program deletes or overwrites files, counted by the damage budget as
	// the kind says: "remove" (rm), "files" (its operands: unlink, shred), "shrink"
	// (truncate), "output" (tee), "blocks" (dd of=), "move" (mv), "copy" (cp), "walk" (find
	// -delete), "mirror" (rsync --delete), "repo" (git's discarding subcommands).
	RoleDestroys = "destroys"
	// RoleExecValues: some of the program's options or operands run code in a way its options'
	// effects do not say, read by value (crontab FILE installs jobs, tmux send-keys, at's
	// standard input), so its options are judged like those of a program with exec options.
	RoleExecValues = "execvalues"
	// RolePaths says what the program does with its operands, when that is all its
	// arguments name beyond its typed options: "none" (they are not files: echo, kill),
	// "read" (cat, head), "write" (mkdir, tee) or "remove" (rm). The words after "read" are
	// option spellings of the entry that make it read whole trees below its operands. A
	// program whose operands need code to place (sed's script, find's expression) has its
	// path code registered in bashrules instead.
	RolePaths = "paths"
	// RoleWrapper runs another command given as its arguments (timeout, sudo, env). Its
	// words: "safe" first when the wrapper adds no power, so that an allow rule for the
	// command it runs allows the whole; then where that command starts: "operand" at the
	// first operand past the options the role lists (spellings of the entry's options, each
	// taking a value or none as the entry says; any other option leaves the start unknown),
	// "code" where code registered in bashrules/cmdline finds it, or "guess" when no reading
	// is trusted: every later word may be it, and the call asks.
	RoleWrapper = "wrapper"
	// RoleChdir changes the shell's working directory to its operand (cd, pushd); "stack":
	// to one taken from the directory stack (popd), which the analysis cannot know.
	RoleChdir = "chdir"
	// RoleSeesCode (an interpreter's): the analysis reads the program text itself (awk's
	// system(), pipes, getline and redirections), so its program is not code the analysis
	// cannot see.
	RoleSeesCode = "seescode"
	// RolePrintsNames: what the program writes to its output is file names, one a line (find,
	// ls), or, with subcommands named, what those subcommands write (git ls-files); an option
	// marked printsnames makes the output names when it is given (grep -l). xargs may then
	// run a read-only command on them (TestPrintsNamesEntries).
	RolePrintsNames = "printsnames"
)

// WrapperStarts are where a wrapper role may say the command it runs starts.
var WrapperStarts = []string{"operand", "code", "guess"}

// WrapperRole is a wrapper role's reading: whether the wrapper adds no power, where its
// command starts (one of WrapperStarts) and, for "operand", the options it reads past.
type WrapperRole struct {
	Safe    bool
	Start   string
	Options []string
}

// Wrapper returns the command's wrapper role, read.
func (c *Command) Wrapper() (WrapperRole, bool) {
	w, ok := c.Roles[RoleWrapper]
	if !ok {
		return WrapperRole{}, false
	}
	var r WrapperRole
	if len(w) > 0 && w[0] == "safe" {
		r.Safe, w = true, w[1:]
	}
	r.Start, r.Options = w[0], w[1:]
	return r, true
}

// OptionSpelled returns the command's option with a spelling as the entry writes it (-u,
// --user), and its arity under that spelling.
func (c *Command) OptionSpelled(s string) (*Option, Arity, bool) {
	for _, o := range c.Options {
		if slices.Contains(o.Spellings, s) {
			return o, o.Arity[s], true
		}
	}
	return nil, None, false
}

// PathKinds are what a paths role may say a program does with its operands.
var PathKinds = []string{"none", "read", "write", "remove"}

// Role returns the words of a role the command states, and whether it states it.
func (c *Command) Role(name string) ([]string, bool) {
	w, ok := c.Roles[name]
	return w, ok
}

// Base is the entry a name runs.
type Base struct {
	programs map[string]*Command
	list     []*Command
}

// Lookup returns the option table of the program a command name runs (the base name of a
// path): its entry, unless the entry says nooptions.
func (b *Base) Lookup(name string) (*Command, bool) {
	c, ok := b.programs[path.Base(name)]
	if !ok || c.NoOptions {
		return nil, false
	}
	return c, ok
}

// Facts returns the entry of the program a command name runs, option table or not.
func (b *Base) Facts(name string) (*Command, bool) {
	c, ok := b.programs[path.Base(name)]
	return c, ok
}

// Programs lists the entries, sorted by name.
func (b *Base) Programs() []*Command { return b.list }

//go:embed programs/*.kb
var embedded embed.FS

var builtin = sync.OnceValue(func() *Base {
	built.Mark(built.Knowledge)
	b, err := LoadFS(embedded, "programs")
	if err != nil {
		panic("knowledge: a built-in entry is broken: " + err.Error())
	}
	return b
})

// Builtin is the embedded knowledge base.
func Builtin() *Base { return builtin() }

// Lookup asks the embedded knowledge base for an option table.
func Lookup(name string) (*Command, bool) { return builtin().Lookup(name) }

// Facts asks the embedded knowledge base for an entry, option table or not.
func Facts(name string) (*Command, bool) { return builtin().Facts(name) }

// LoadFS loads every .kb file of a directory into one base. A program named by two entries is
// an error naming both.
func LoadFS(fsys fs.FS, dir string) (*Base, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("knowledge: %w", err)
	}
	b := &Base{programs: map[string]*Command{}}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".kb") {
			continue
		}
		data, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("knowledge: %w", err)
		}
		progs, err := Parse(e.Name(), data)
		if err != nil {
			return nil, err
		}
		if err := b.add(progs); err != nil {
			return nil, err
		}
	}
	sort.Slice(b.list, func(i, j int) bool { return b.list[i].Names[0] < b.list[j].Names[0] })
	if err := b.resolveLike(); err != nil {
		return nil, err
	}
	return b, nil
}

// resolveLike gives each entry that says "like P" the options of P's entry that it does not
// spell itself.
func (b *Base) resolveLike() error {
	for _, p := range b.list {
		if p.Like == "" {
			continue
		}
		src, ok := b.programs[p.Like]
		if !ok || src.Like != "" {
			return fmt.Errorf("%s: like %s: no such entry, or one that is itself like another", p.Pos, p.Like)
		}
		for _, o := range src.Options {
			clash := false
			for _, sp := range o.Spellings {
				for _, mine := range p.Options {
					if _, ok := mine.Arity[sp]; ok {
						clash = true
					}
				}
			}
			if !clash {
				p.Options = append(p.Options, o)
			}
		}
		// How the options are read goes with them.
		p.Abbrev, p.Digits, p.Negate, p.DashDash = p.Abbrev || src.Abbrev, p.Digits || src.Digits, p.Negate || src.Negate, p.DashDash || src.DashDash
		p.HelpSkip = append(p.HelpSkip, src.HelpSkip...)
		p.longs = nil
		p.index()
		p.typed = p.typed || src.typed
	}
	return nil
}

func (b *Base) add(progs []*Command) error {
	for _, p := range progs {
		for _, n := range p.Names {
			if prev, ok := b.programs[n]; ok {
				return fmt.Errorf("%s: program %s is already described at %s", p.Pos, n, prev.Pos)
			}
			b.programs[n] = p
		}
		b.list = append(b.list, p)
	}
	return nil
}

// index builds a command's lookup maps; called once its entry is read.
func (c *Command) index() {
	c.short, c.long, c.words = map[byte]*Option{}, map[string]*Option{}, map[string]*Option{}
	for _, o := range c.Options {
		for _, s := range o.Spellings {
			switch kindOf(s) {
			case kShort:
				c.short[s[1]] = o
			case kLong:
				c.long[s[2:]] = o
				c.longs = append(c.longs, s[2:])
			case kWord:
				c.words[s] = o
				if c.DashDash {
					c.long[s[1:]] = o
					c.longs = append(c.longs, s[1:])
				}
			case kPattern:
				c.patterns = append(c.patterns, pattern{strings.TrimSuffix(s, "*"), o})
			}
		}
	}
	if c.Negate {
		c.negations()
	}
	slices.Sort(c.longs)
	// The longest prefix is tried first: -Wl,* before -W*.
	slices.SortStableFunc(c.patterns, func(a, b pattern) int { return len(b.prefix) - len(a.prefix) })
}

// negations adds, for a command whose long options may be negated (git's parse-options),
// --no-X for each --X and --X for each --no-X the entry lists, unless the entry lists it
// itself. A negation turns the option off, so it does nothing a check must see.
func (c *Command) negations() {
	for _, o := range c.Options {
		for _, s := range o.Spellings {
			if kindOf(s) != kLong || o.ArityOf(s) != None && o.ArityOf(s) != Optional && !strings.HasPrefix(s, "--no-") {
				continue
			}
			name := "no-" + s[2:]
			if rest, ok := strings.CutPrefix(s[2:], "no-"); ok {
				name = rest
			}
			if _, ok := c.long[name]; ok {
				continue
			}
			neg := &Option{Canon: []string{name}, Spellings: []string{"--" + name}, Arity: map[string]Arity{"--" + name: None}, Pos: o.Pos, Negation: true}
			c.long[name] = neg
			c.longs = append(c.longs, name)
		}
	}
}

// pattern is a family of options named by a prefix (gcc's -f*, -W*): any word that starts with
// it is that option, unless a longer pattern or an exact spelling says otherwise.
type pattern struct {
	prefix string
	opt    *Option
}

// Pattern is the option family a word belongs to, by its longest matching prefix.
func (c *Command) Pattern(w string) (*Option, bool) {
	for _, p := range c.patterns {
		if strings.HasPrefix(w, p.prefix) {
			return p.opt, true
		}
	}
	return nil, false
}

type spellingKind uint8

const (
	kBad spellingKind = iota
	kShort
	kLong
	kWord
	kPattern // -f*: every word starting with -f
)

func kindOf(s string) spellingKind {
	switch {
	case len(s) > 2 && s[0] == '-' && strings.HasSuffix(s, "*") && !strings.HasPrefix(s, "--"):
		return kPattern
	case strings.HasPrefix(s, "--") && len(s) > 2:
		return kLong
	case len(s) == 2 && s[0] == '-' && s[1] != '-':
		return kShort
	case len(s) > 2 && s[0] == '-':
		return kWord
	}
	return kBad
}

// Short is the option a short letter names.
func (c *Command) Short(ch byte) (*Option, bool) { o, ok := c.short[ch]; return o, ok }

// Long resolves a long option name (without "--"): exactly, or by unique prefix where the
// command accepts abbreviations. ambiguous is set when a prefix names more than one option.
func (c *Command) Long(name string) (o *Option, ambiguous bool) {
	if o, ok := c.long[name]; ok {
		return o, false
	}
	if !c.Abbrev || name == "" {
		return nil, false
	}
	i := sort.SearchStrings(c.longs, name)
	for ; i < len(c.longs) && strings.HasPrefix(c.longs[i], name); i++ {
		cand := c.long[c.longs[i]]
		if o != nil && o != cand {
			return nil, true
		}
		o = cand
	}
	return o, false
}

// Word is the single-dash long option spelled w (-exec), if the command has one.
func (c *Command) Word(w string) (*Option, bool) { o, ok := c.words[w]; return o, ok }

// Sub resolves a subcommand by name, alias or (where the program accepts it) unique prefix.
func (c *Command) Sub(w string) (*Command, bool) {
	if strings.Contains(w, "/") {
		return nil, false // a two-word subcommand is two words (subAt), never one with a slash
	}
	if s, ok := c.Subs[w]; ok {
		return s, true
	}
	if !c.SubAbbrev || w == "" {
		return nil, false
	}
	var found *Command
	for n, s := range c.Subs {
		if strings.HasPrefix(n, w) && !strings.Contains(n, "/") {
			if found != nil && found != s {
				return nil, false
			}
			found = s
		}
	}
	return found, found != nil
}

// ArityOf is how the option takes a value when spelled s.
func (o *Option) ArityOf(s string) Arity { return o.Arity[s] }

// Long is the option's first long spelling ("--force"), or its first spelling.
func (o *Option) Long() string {
	for _, s := range o.Spellings {
		if kindOf(s) == kLong {
			return s
		}
	}
	return o.Spellings[0]
}
