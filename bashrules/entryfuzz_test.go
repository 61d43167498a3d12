package bashrules

import (
	"context"
	"strings"
	"testing"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
)

// choices reads a fuzzer's bytes as a stream of small decisions; past the end every decision
// is 0, so any input builds a command.
type choices struct {
	b []byte
	i int
}

func (c *choices) n(k int) int {
	if k <= 1 {
		return 0
	}
	if c.i >= len(c.b) {
		return 0
	}
	v := int(c.b[c.i])
	c.i++
	if k > 256 {
		// Two bytes for a choice among many (an entry out of hundreds).
		if c.i < len(c.b) {
			v = v<<8 | int(c.b[c.i])
			c.i++
		}
	}
	return v % k
}

func pick[T any](c *choices, xs []T) T { return xs[c.n(len(xs))] }

// The values an option may be given, by what the option does with them. A file an option
// reads or writes lies outside the working directories, so that the path stage must ask.
const outsideFile = "../outside/secret"

var (
	fuzzOperands   = []string{"README.md", "src", "x", "a.txt", "'a b'", "5", "origin", "main"}
	fuzzTails      = []string{"", "", " && ls", "; echo hi", " | wc -l", " 2>/dev/null", " > out.txt", " < README.md"}
	fuzzWrappers   = []string{"", "", "", "env A=1 ", "nice ", "timeout 5 "}
	fuzzPlainValue = []string{"5", "x", "README.md", "main", "a,b"}
)

// entryCommand is a command line built from one entry: the program, options of the entry
// (every spelling, with values of the option's type) or options it does not know, a
// subcommand, operands, perhaps a wrapper, a separator or a redirection.
type entryCommand struct {
	line, prog, sub string
	// hazard names an option in the line that no allow rule for the program may cover: one
	// the entry does not know, one that runs code or names a program, one that reads or
	// writes a file outside the working directories; "" if none.
	hazard string
	// backup names a suffix option in the line (cp -S): with two operands, a file may be
	// backed up under the suffix, here one outside the working directories.
	backup string
}

func buildEntryCommand(c *choices, entries []*knowledge.Command) entryCommand {
	e := pick(c, entries)
	// The rules name the program as the line spells it: an entry's names are a family of
	// programs read alike (awk gawk mawk), and a rule on one names that one.
	ec := entryCommand{prog: pick(c, e.Names)}
	words := []string{ec.prog}
	words = entryOptions(c, e, e, words, &ec)
	cmd := e
	if subs := e.Subcommands(); len(subs) > 0 && c.n(4) != 0 {
		cmd = pick(c, subs)
		ec.sub = strings.ReplaceAll(pick(c, cmd.Names), "/", " ")
		words = append(words, ec.sub)
		words = entryOptions(c, e, cmd, words, &ec)
	}
	nops := c.n(4)
	for range nops {
		words = append(words, pick(c, fuzzOperands))
	}
	if nops >= 2 && ec.hazard == "" {
		ec.hazard = ec.backup
	}
	wrapper := pick(c, fuzzWrappers)
	if strings.HasPrefix(wrapper, ec.prog+" ") {
		// Bash(env:*) covers whatever env runs, env --x included: the rule names the wrapper.
		wrapper = ""
	}
	ec.line = wrapper + strings.Join(words, " ") + pick(c, fuzzTails)
	return ec
}

// entryOptions appends up to three options of cmd, the program e or one of its subcommands,
// to words.
func entryOptions(c *choices, e, cmd *knowledge.Command, words []string, ec *entryCommand) []string {
	if cmd.NoOpts {
		return words
	}
	for range c.n(4) {
		if c.n(8) == 0 {
			if e.Partial || cmd.Partial || e.OpenLong || cmd.OpenLong || ec.hazard != "" {
				continue
			}
			name := "--zq" + pick(c, []string{"x", "yy", "-frob", "v"})
			if o, amb := cmd.Long(name[2:]); o != nil || amb {
				continue
			}
			words = append(words, name)
			ec.hazard = name
			continue
		}
		if len(cmd.Options) == 0 {
			continue
		}
		o := pick(c, cmd.Options)
		sp := pick(c, o.Spellings)
		if strings.HasSuffix(sp, "*") {
			continue // an option family (-f*) has no one spelling to write
		}
		w, hazard := optionWords(c, cmd, o, sp)
		words = append(words, w...)
		if hazard && ec.hazard == "" {
			ec.hazard = sp
		}
		if o.Effects&knowledge.Suffix != 0 && o.ArityOf(sp) != knowledge.None {
			ec.backup = sp
		}
		if o.Last {
			break // what follows is the program's arguments, not options
		}
	}
	return words
}

// optionWords spells option o of cmd as sp — abbreviated or clustered, where cmd reads it
// so — with a value of its type, and says whether no allow rule for the program may cover it.
func optionWords(c *choices, cmd *knowledge.Command, o *knowledge.Option, sp string) ([]string, bool) {
	hazard := o.Effects.Dangerous()
	val := pick(c, fuzzPlainValue)
	switch eff := o.Effects; {
	case eff&knowledge.Pipe != 0:
		val, hazard = "'|sh'", true
	case eff&knowledge.At != 0:
		val, hazard = "@"+outsideFile, true
	case eff&knowledge.Suffix != 0:
		val = "'../outside/*'" // sed -i'bak/*': the file's name in place of the star
	case eff&knowledge.Mount != 0:
		val, hazard = outsideFile+":/x", true
	case eff&(knowledge.Read|knowledge.Write|knowledge.List) != 0:
		val, hazard = outsideFile, true
	case eff&knowledge.Host != 0:
		val = "example.com"
	case o.Code || o.Script:
		val = "'echo hi'"
	}
	long := strings.HasPrefix(sp, "--")
	word := shellWord(respell(c, cmd, o, sp))
	switch o.ArityOf(sp) {
	case knowledge.None:
		// A value-less option's effect is on files it does not name (find -delete: the
		// operands), which the path stage sees; only an exec-family one is a hazard here.
		return []string{word}, o.Effects.Dangerous()
	case knowledge.Optional:
		if long || len(sp) > 2 {
			return []string{word + "=" + val}, hazard
		}
		return []string{word + val}, hazard
	case knowledge.Two:
		return []string{word, "v", val}, hazard
	}
	switch {
	case long && c.n(2) == 0:
		return []string{word + "=" + val}, hazard
	case len(sp) == 2 && c.n(2) == 0 && !strings.HasPrefix(val, "'"):
		return []string{word + val}, hazard
	}
	return []string{word, val}, hazard
}

// respell abbreviates a long spelling or puts a short one in a cluster, at random, where the
// command accepts it; sp itself otherwise.
func respell(c *choices, cmd *knowledge.Command, o *knowledge.Option, sp string) string {
	switch {
	case strings.HasPrefix(sp, "--") && cmd.Abbrev && c.n(3) == 0:
		for n := 3; n < len(sp); n++ {
			if got, amb := cmd.Long(sp[2:n]); got == o && !amb && longSpellingsWithPrefix(cmd, sp[:n]) == 1 {
				return sp[:n]
			}
		}
	case len(sp) == 2 && sp[0] == '-' && c.n(3) == 0:
		if m := clusterMate(cmd, o); m != 0 {
			return "-" + string(m) + sp[1:]
		}
	}
	return sp
}

// shellWord quotes s when the shell would read it as more than a word.
func shellWord(s string) string {
	if strings.ContainsAny(s, "\"'`$\\;&|<>()*?[]#~{} !") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// FuzzEntryCommands builds command lines from the knowledge base's entries and checks what
// must hold for any of them: the analysis does not panic and decides the same way twice; a
// deny rule on the program never yields allow; an allow rule for the program never allows a
// line holding an option the entry does not mark harmless.
func FuzzEntryCommands(f *testing.F) {
	for _, s := range []string{"", "\x00\x01\x02\x03", "\x10\x20\x30\x40\x50\x60", "\xff\xfe\x07\x01\x03\x02\x05",
		"\x00\x42\x03\x01\x00\x02\x01\x01\x02", "\x01\x00\x02\x00\x00\x09\x01\x01\x03\x04"} {
		f.Add([]byte(s))
	}
	fx := newFixture(f)
	entries := optionTables()
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		ec := buildEntryCommand(&choices{b: data}, entries)
		checkEntryCommand(ctx, t, fx, ec)
	})
}

func checkEntryCommand(ctx context.Context, t *testing.T, fx fixture, ec entryCommand) {
	t.Helper()
	allow := "allow:Bash(" + ec.prog + ":*)"
	pc := fx.context(t, permission.ModeDefault, allow)
	d1 := Check(ctx, pc, ec.line)
	if d2 := Check(ctx, fx.context(t, permission.ModeDefault, allow), ec.line); d1.Behavior != d2.Behavior || reasonText(d1) != reasonText(d2) {
		t.Fatalf("Check(%q) decided %s (%s), then %s (%s)", ec.line, outcome(d1), reasonText(d1), outcome(d2), reasonText(d2))
	}
	// What the line gets with no rule at all (cd into the project, a read-only command) is
	// not the rule's doing.
	if ec.hazard != "" && d1.Behavior == permission.Allow && Check(ctx, fx.context(t, permission.ModeDefault), ec.line).Behavior != permission.Allow {
		_, tr := check(t, pc, ec.line)
		t.Fatalf("Check(%q) under Bash(%s:*) = allow, though option %s is not harmless\n%s", ec.line, ec.prog, ec.hazard, explain(d1, tr))
	}
	denies := []string{"deny:Bash(" + ec.prog + ":*)"}
	if ec.sub != "" {
		denies = append(denies, "deny:Bash("+ec.prog+" "+ec.sub+":*)")
	}
	for _, deny := range denies {
		for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeBypass} {
			pc := fx.context(t, mode, deny, "allow:Bash")
			var e permission.Engine
			d, err := e.Decide(ctx, pc, bashTool{}, map[string]any{"command": ec.line})
			if err == nil && d.Behavior == permission.Allow {
				_, tr := check(t, pc, ec.line)
				t.Fatalf("%q with %s in %s: allow\n%s", ec.line, deny, mode, explain(d, tr))
			}
		}
	}
}
