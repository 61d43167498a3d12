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
)

// Effect is what an option or environment variable does that a permission check must see.
type Effect uint8

const (
	Exec    Effect = 1 << iota // runs code or a command
	Program                    // names a program or helper that is run
	Write                      // writes or removes a file (the one its value names, if any)
	Read                       // reads the file its value names
)

// Dangerous reports whether the effect runs something the analysis does not see.
func (e Effect) Dangerous() bool { return e&(Exec|Program) != 0 }

var effectNames = []struct {
	e    Effect
	name string
}{{Exec, "exec"}, {Program, "program"}, {Write, "write"}, {Read, "read"}}

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
	// Newer: the option is newer than the program's version in Debian stable, so the test
	// against the installed program's help does not require it.
	Newer bool
	Pos   string // file:line of the entry
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
	// Help are the argument lists that make the program print its options, for the test
	// that checks the entry against it (default --help); [none] when no output lists them.
	Help     [][]string
	ReadOnly bool // in the read-only set when every option is known (bashrules adds its own checks)
	// NoOptions: the entry lists only what its roles need, not the program's options, so it
	// is no option table: Lookup does not return it, Facts does.
	NoOptions bool
	// Roles are what the program does with its arguments beyond its options (see Role*),
	// each with its words.
	Roles   map[string][]string
	Options []*Option
	Env     map[string]Effect
	Sigils  map[byte]string
	Subs    map[string]*Command // by every name of every subcommand
	subList []*Command
	parent  *Command

	short map[byte]*Option
	long  map[string]*Option
	words map[string]*Option // single-dash long spellings, with their dash
	longs []string           // long names, sorted, for abbreviations
}

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
)

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
	return b, nil
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
			}
		}
	}
	slices.Sort(c.longs)
}

type spellingKind uint8

const (
	kBad spellingKind = iota
	kShort
	kLong
	kWord
)

func kindOf(s string) spellingKind {
	switch {
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
	if s, ok := c.Subs[w]; ok {
		return s, true
	}
	if !c.SubAbbrev || w == "" {
		return nil, false
	}
	var found *Command
	for n, s := range c.Subs {
		if strings.HasPrefix(n, w) {
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
