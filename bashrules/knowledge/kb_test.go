package knowledge

import (
	"strings"
	"testing"
)

// TestEveryEntryLoads loads the embedded entries; a broken one fails here, naming its place.
func TestEveryEntryLoads(t *testing.T) {
	b, err := LoadFS(embedded, "programs")
	if err != nil {
		t.Fatal(err)
	}
	opts, tables, tableOpts := 0, 0, 0
	for _, p := range b.Programs() {
		n := len(p.Options)
		for _, s := range p.Subcommands() {
			n += len(s.Options)
		}
		opts += n
		if !p.NoOptions {
			tables, tableOpts = tables+1, tableOpts+n
		}
	}
	t.Logf("%d entries, %d options; %d of them option tables, with %d options", len(b.Programs()), opts, tables, tableOpts)
	if len(b.Programs()) < 60 {
		t.Errorf("%d programs, want at least 60", len(b.Programs()))
	}
}

func TestParseErrorsArePositioned(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"opt -x", "f.kb:1:1: opt before the first program"},
		{"program a\nopt x", "f.kb:2:5: opt needs at least one spelling"},
		{"program a\nopt -x frob", `f.kb:2:8: unknown word "frob"`},
		{"program a\nopt -x\nopt -x", "f.kb:3:5: option -x is already described at f.kb:2"},
		{"program a\nflags wat", `f.kb:2:7: unknown flag "wat"`},
		{"program a\nbogus", `f.kb:2:1: unknown directive "bogus"`},
		{"program a\nhelpoperands -x y", `f.kb:2:17: "y" is not an option spelling`},
		{"program a\nalias b,c! d", `f.kb:2:7: "b,c!" is not a word`},
		{"program a\nsub b\nsub b", "f.kb:3:5: subcommand b is already described at f.kb:2"},
		{"program a\nenv X wat", `f.kb:2:7: unknown effect "wat"`},
		{"program a\nopt --x as=", `f.kb:2:12: "" is not a canonical name`},
		{"program a!", `f.kb:1:9: "a!" is not a command name`},
		{"program a\nrole", "f.kb:2:5: role needs a name"},
		{"program a\nrole wizard", `f.kb:2:6: unknown role "wizard"`},
		{"program a\nrole runner", "f.kb:2:6: role runner takes one of each, argv, remote, stdin"},
		{"program a\nrole runner each argv", "f.kb:2:6: role runner takes one of"},
		{"program a\nrole runner later", `f.kb:2:13: unknown word "later" for role runner`},
		{"program a\nrole dbclient x", `f.kb:2:15: unknown word "x" for role dbclient (want operands)`},
		{"program a\nrole launcher run a!b", `f.kb:2:19: "a!b" is not a subcommand name`},
		{"program a\nrole data\nrole data", "f.kb:3:6: role data is stated twice"},
		{"program a\nsub b\nrole data", "f.kb:3:1: role is a directive of a program"},
		{"program a\nsub b\nflags nooptions", "f.kb:3:7: nooptions is a flag of a program"},
		{"program a\nsub b\nflags group", "f.kb:3:7: group is a flag of a program"},
		{"program a\nopt -c= coda", `f.kb:2:9: unknown word "coda"`},
		{"program a\nrole paths", "f.kb:2:6: role paths takes one of none, read, write, remove"},
		{"program a\nrole seescode x", "f.kb:2:15: role seescode takes no words"},
		{"program a\nrole printsnames -l", `f.kb:2:18: "-l" is not a subcommand name`},
		{"program a\nsub b\nrole printsnames", "f.kb:3:1: role is a directive of a program, not of a subcommand"},
		{"program a\nrole paths reads", `f.kb:2:12: unknown word "reads" for role paths`},
		{"program a\nrole paths write -r", "f.kb:2:18: role paths write takes no tree options"},
		{"program a\nrole paths read r", `f.kb:2:17: "r" is not an option spelling`},
		{"program a\nrole paths read -r\nopt -R\nprogram b", "f.kb:2:17: tree option -r of role paths is not an option of a"},
		{"program a\nrole paths read -r\nopt -R", "f.kb:2:17: tree option -r of role paths is not an option of a"},
		{"program a\nrole paths none\nrole paths read", "f.kb:3:6: role paths is stated twice"},
		{"program a\nrole wrapper", "f.kb:2:6: role wrapper takes [safe] then one of operand, code, guess"},
		{"program a\nrole wrapper safe", "f.kb:2:6: role wrapper takes [safe] then one of"},
		{"program a\nrole wrapper first", "f.kb:2:14: role wrapper takes [safe] then one of"},
		{"program a\nrole wrapper guess safe", "f.kb:2:20: role wrapper guess takes no options"},
		{"program a\nrole wrapper code -p\nopt -p", "f.kb:2:19: role wrapper code takes no options"},
		{"program a\nrole wrapper operand p", `f.kb:2:22: "p" is not an option spelling`},
		{"program a\nrole wrapper operand -u=\nopt -u=", "f.kb:2:22: option -u= of role wrapper is not an option of a"},
		{"program a\nrole wrapper safe operand -q\nopt -p\nprogram b", "f.kb:2:27: option -q of role wrapper is not an option of a"},
		{"program a\nrole wrapper operand --color\nopt --color?", "f.kb:2:22: option --color of role wrapper takes an optional or a second value"},
		{"program a\nrole chdir up", `f.kb:2:12: unknown word "up" for role chdir`},
	} {
		_, err := Parse("f.kb", []byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestRolesAndNoOptions: a roles-only entry is a fact for Facts and no option table for
// Lookup; its options carry code, script and norun.
func TestRolesAndNoOptions(t *testing.T) {
	progs, err := Parse("f.kb", []byte("program py\nflags nooptions\nrole interpreter eval\nopt -c= code\nopt -N norun\nopt -s= script\n"+
		"program g\nrole local status diff\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := &Base{programs: map[string]*Command{}}
	if err := b.add(progs); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Lookup("py"); ok {
		t.Error("Lookup returned a nooptions entry")
	}
	py, ok := b.Facts("/usr/bin/py")
	if !ok {
		t.Fatal("Facts did not find py")
	}
	if w, ok := py.Role(RoleInterpreter); !ok || len(w) != 1 || w[0] != "eval" {
		t.Errorf("interpreter role = %v %v", w, ok)
	}
	c, _ := py.Short('c')
	n, _ := py.Short('N')
	s, _ := py.Short('s')
	if c == nil || !c.Code || n == nil || !n.NoRun || s == nil || !s.Script || c.Effects.Dangerous() {
		t.Errorf("attributes: -c %+v -N %+v -s %+v", c, n, s)
	}
	if g, ok := b.Lookup("g"); !ok || len(g.Roles[RoleLocal]) != 2 {
		t.Errorf("g: %+v %v", g, ok)
	}
}

// TestSpellingsAgreeOnAValue: the spellings of one option either all take a value or all take
// none (a negation aside), as the programs read them. A spelling recorded without its value
// reads the value as an operand (rsync -T DIR: DIR a path to sync), or the next option as one
// (gdb -D DIR), and a deny rule on one spelling then misses the other.
func TestSpellingsAgreeOnAValue(t *testing.T) {
	var walk func(c *Command)
	walk = func(c *Command) {
		for _, o := range c.Options {
			var takes, none []string
			for _, s := range o.Spellings {
				switch a := o.ArityOf(s); {
				case strings.HasPrefix(s, "--no-"), strings.HasSuffix(s, "*"): // a negation, a family
				case a == Required:
					takes = append(takes, s)
				case a == None:
					none = append(none, s)
				}
			}
			if len(takes) > 0 && len(none) > 0 {
				t.Errorf("%s: %s: %v take a value and %v none", o.Pos, c.Name(), takes, none)
			}
		}
		for _, s := range c.Subcommands() {
			walk(s)
		}
	}
	for _, c := range Builtin().Programs() {
		walk(c)
	}
}

// TestTwoWordValue: an option spelled NAME== takes the next two words (jq --slurpfile NAME
// FILE): the second is its value, which the option's type describes, and neither is an
// operand.
func TestTwoWordValue(t *testing.T) {
	jq, ok := Lookup("jq")
	if !ok {
		t.Fatal("no jq entry")
	}
	words := []string{"--slurpfile", "v", "secret.json", ".x", "in.json"}
	args := make([]Arg, len(words))
	for i, w := range words {
		args[i] = Arg{Value: w, Known: true}
	}
	p := jq.Parse(args)
	if len(p.Uses) != 1 || p.Uses[0].Value != "secret.json" || p.Uses[0].ValueArg != 2 || p.Uses[0].Opt.Effects&Read == 0 {
		t.Errorf("uses = %+v", p.Uses)
	}
	if len(p.Operands) != 2 || p.Operands[0] != 3 || p.Operands[1] != 4 {
		t.Errorf("operands = %v, want [3 4]", p.Operands)
	}
	// Cut short, the option swallows what is left: no word becomes an operand.
	if p := jq.Parse(args[:2]); len(p.Operands) != 0 {
		t.Errorf("short: operands = %v", p.Operands)
	}
}
