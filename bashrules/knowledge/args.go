package knowledge

import "strings"

// Arg is one word of a command after quote removal. A word whose value is only known when it
// runs is not Known; it is taken as an operand (the caller decides what that means).
type Arg struct {
	Value string
	Known bool
}

// Use is one option as a command uses it.
type Use struct {
	Opt      *Option
	Spelling string // the entry's spelling the word resolved to (an abbreviation's full name)
	Word     int    // index of the word the option is in
	Value    string
	HasValue bool
	ValueArg int // index of a separate value word, or -1 when attached or absent
}

// Unknown is an option word that the entry does not know.
type Unknown struct {
	Word int
	Text string // the option as written (-x of a cluster, --name of --name=value)
	Why  string
}

// Parsed is a command's arguments read the way the program reads them.
type Parsed struct {
	Sub      *Command // the subcommand, if the program has one and it was found
	SubWord  int      // index of the subcommand's word, -1 if none
	Uses     []Use
	Operands []int // indexes of the operands, in order
	Unknown  []Unknown
	Sigils   []string // canonical names implied by operand sigils (git push +main)
	// AtFiles are the indexes of the @FILE words of a program that reads more arguments
	// from them (flags atfile).
	AtFiles []int
	// Beyond is the index of the first word past what the entry describes — the operand
	// naming a subcommand the entry does not list — or -1. Words from there on are operands.
	Beyond int
	// light: record only what is unknown (FirstUnknown), so that a command whose options are
	// all known is read without allocating; lastHit notes a Last option it did not record.
	light, lastHit bool
}

// FirstUnknown reports the first option word the entry does not know, as Parse would.
func (c *Command) FirstUnknown(args []Arg) (Unknown, bool) {
	p := Parsed{SubWord: -1, Beyond: -1, light: true}
	c.parse(args, &p)
	if len(p.Unknown) == 0 {
		return Unknown{}, false
	}
	return p.Unknown[0], true
}

func (p *Parsed) use(u Use) {
	if !p.light {
		p.Uses = append(p.Uses, u)
	} else if u.Opt.Last {
		p.lastHit = true
	}
}

func (p *Parsed) operand(i int) {
	if !p.light {
		p.Operands = append(p.Operands, i)
	}
}

// Parse reads a program's arguments (the words after its name). Options before a subcommand
// are the program's; after it, the subcommand's (and the program's with "inherit").
func (c *Command) Parse(args []Arg) Parsed {
	var p Parsed
	c.ParseInto(args, &p)
	return p
}

// ParseInto is Parse into p, appending to the slices p already has (a caller's buffers).
func (c *Command) ParseInto(args []Arg, p *Parsed) {
	p.Sub, p.SubWord, p.Beyond, p.light = nil, -1, -1, false
	p.Uses, p.Operands, p.Unknown, p.Sigils, p.AtFiles = p.Uses[:0], p.Operands[:0], p.Unknown[:0], p.Sigils[:0], p.AtFiles[:0]
	c.parse(args, p)
}

func (c *Command) parse(args []Arg, p *Parsed) {
	cur := c
	endOpts := c.NoOpts
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		switch {
		case a.Known && len(v) > 1 && v[0] == '@' && cur.AtFile && !endOpts:
			p.AtFiles = append(p.AtFiles, i)
			if p.light {
				p.Unknown = append(p.Unknown, Unknown{i, v, "argument " + v + " reads more arguments from a file"})
				return
			}
		case !a.Known || endOpts || len(v) < 2 || v[0] != '-':
			if a.Known && p.Sub == nil && len(c.Subs) > 0 && !endOpts {
				if s, n, ok := c.subAt(args, i); ok {
					p.Sub, p.SubWord, cur = s, i, s
					i += n - 1
					endOpts = s.NoOpts
					continue
				}
				// A complete program's first operand is its subcommand: one the entry does
				// not list ends what it knows. A partial one's unknown option may have taken
				// this word as its value, so the subcommand may still follow.
				if !c.Partial {
					p.Beyond = i
					for j := i; j < len(args); j++ {
						p.operand(j)
					}
					return
				}
			}
			if a.Known && len(v) > 1 && cur.Sigils != nil {
				if canon, ok := cur.Sigils[v[0]]; ok {
					p.Sigils = append(p.Sigils, canon)
				}
			}
			p.operand(i)
			if cur.Posix && (p.Sub != nil || len(c.Subs) == 0) {
				endOpts = true
			}
		case v == "--":
			endOpts = true
		default:
			n := len(p.Uses)
			i = cur.option(c, args, i, p)
			if p.light && len(p.Unknown) > 0 {
				return
			}
			if len(p.Uses) > n && p.Uses[len(p.Uses)-1].Opt.Last || p.light && p.lastHit {
				endOpts = true
			}
			p.lastHit = false
		}
	}
}

// subAt resolves the subcommand at args[i]: a two-word one (docker container rm) first, then
// one word. It returns how many words it takes.
func (c *Command) subAt(args []Arg, i int) (*Command, int, bool) {
	if c.twoWord && i+1 < len(args) && args[i+1].Known {
		if s, ok := c.Subs[args[i].Value+"/"+args[i+1].Value]; ok {
			return s, 2, true
		}
	}
	s, ok := c.Sub(args[i].Value)
	return s, 1, ok
}

// option reads the option word args[i] and returns the index of its last word.
func (cur *Command) option(prog *Command, args []Arg, i int, p *Parsed) int {
	v := args[i].Value
	if strings.HasPrefix(v, "--") {
		return cur.longOpt(prog, args, i, p)
	}
	name, val, hasVal := strings.Cut(v, "=")
	if o := cur.lookupWord(prog, name); o != nil {
		return p.take(o, name, args, i, val, hasVal)
	}
	if o := cur.lookupPattern(prog, v); o != nil {
		// A family member carries what it says in its own word (-fno-builtin, -Wl,-z,now).
		p.use(Use{Opt: o, Spelling: v, Word: i, ValueArg: -1})
		return i
	}
	return cur.cluster(prog, args, i, p)
}

// cluster reads -abc: short options, the last of which may take the rest or the next word.
func (cur *Command) cluster(prog *Command, args []Arg, i int, p *Parsed) int {
	v := args[i].Value
	for j := 1; j < len(v); j++ {
		ch := v[j]
		if (cur.Digits || prog.Digits && cur.Inherit) && ch >= '0' && ch <= '9' {
			continue
		}
		o := cur.lookupShort(prog, ch)
		if o == nil {
			p.Unknown = append(p.Unknown, Unknown{i, "-" + string(ch), "option -" + string(ch) + " is not known"})
			return i
		}
		sp := "-" + string(ch)
		u := Use{Opt: o, Spelling: sp, Word: i, ValueArg: -1}
		switch o.ArityOf(sp) {
		case Required:
			if j+1 < len(v) {
				u.Value, u.HasValue = v[j+1:], true
			} else if i+1 < len(args) {
				u.Value, u.HasValue, u.ValueArg = args[i+1].Value, true, i+1
				i++
			}
			p.use(u)
			return i
		case Optional:
			if j+1 < len(v) {
				u.Value, u.HasValue = v[j+1:], true
			}
			p.use(u)
			return i
		}
		p.use(u)
	}
	return i
}

func (cur *Command) longOpt(prog *Command, args []Arg, i int, p *Parsed) int {
	v := args[i].Value
	name, val, hasVal := strings.Cut(v[2:], "=")
	o, ambiguous := cur.lookupLong(prog, name)
	if o == nil && !ambiguous && (cur.OpenLong || prog.OpenLong && prog.Inherit) && name != "" {
		// A setting of the program's own (npm --watch: the configuration key watch).
		o = &Option{Canon: []string{name}, Spellings: []string{"--" + name}, Arity: map[string]Arity{"--" + name: Optional}}
		return p.take(o, "--"+name, args, i, val, hasVal)
	}
	if o == nil {
		why := "option --" + name + " is not known"
		if ambiguous {
			why = "option --" + name + " is ambiguous"
		}
		p.Unknown = append(p.Unknown, Unknown{i, "--" + name, why})
		return i
	}
	full := "--" + name
	if _, ok := o.Arity[full]; !ok {
		for _, s := range o.Spellings {
			if kindOf(s) == kLong && strings.HasPrefix(s, full) {
				full = s
				break
			}
		}
	}
	return p.take(o, full, args, i, val, hasVal)
}

// take records option o, spelled spelling at args[i], with its value: attached (val, when
// hasVal) or, for an option that requires one, the next word. It returns the index of the
// option's last word.
func (p *Parsed) take(o *Option, spelling string, args []Arg, i int, val string, hasVal bool) int {
	u := Use{Opt: o, Spelling: spelling, Word: i, ValueArg: -1}
	switch a := o.ArityOf(spelling); {
	case hasVal && a == None:
		p.Unknown = append(p.Unknown, Unknown{i, spelling, "option " + spelling + " does not take a value"})
		return i
	case hasVal:
		u.Value, u.HasValue = val, true
	case a == Required && i+1 < len(args):
		u.Value, u.HasValue, u.ValueArg = args[i+1].Value, true, i+1
		i++
	case a == Two && i+2 < len(args):
		// The name is the first word; the value, which a type describes, the second.
		u.Value, u.HasValue, u.ValueArg = args[i+2].Value, true, i+2
		i += 2
	case a == Two:
		i = len(args) - 1
	}
	p.use(u)
	return i
}

// The lookups try the subcommand, then the program when the subcommand inherits its options.
func (cur *Command) lookupLong(prog *Command, name string) (*Option, bool) {
	o, amb := cur.Long(name)
	if o == nil && !amb && cur != prog && prog.Inherit {
		return prog.Long(name)
	}
	return o, amb
}

func (cur *Command) lookupShort(prog *Command, ch byte) *Option {
	if o, ok := cur.Short(ch); ok {
		return o
	}
	if cur != prog && prog.Inherit {
		o, _ := prog.Short(ch)
		return o
	}
	return nil
}

func (cur *Command) lookupPattern(prog *Command, w string) *Option {
	if o, ok := cur.Pattern(w); ok {
		return o
	}
	if cur != prog && prog.Inherit {
		if o, ok := prog.Pattern(w); ok {
			return o
		}
	}
	return nil
}

func (cur *Command) lookupWord(prog *Command, w string) *Option {
	if o, ok := cur.Word(w); ok {
		return o
	}
	if cur != prog && prog.Inherit {
		if o, ok := prog.Word(w); ok {
			return o
		}
	}
	return nil
}

// Complete reports whether the option list of the command the parse ended in is complete:
// the program's, and the subcommand's if one was found. A program with subcommands whose
// subcommand was not found is complete only if it lists no subcommands.
func (c *Command) Complete(p Parsed) bool {
	if c.Partial {
		return false
	}
	if p.Sub != nil {
		return !p.Sub.Partial
	}
	return true
}
