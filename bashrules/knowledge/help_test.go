package knowledge

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var missingFlag = flag.Bool("missing", false, "TestEntriesMatchHelp: print the options each entry lacks, as opt lines")

// TestEntriesMatchHelp proves the entries against the installed programs, both ways: every
// long option an entry lists must appear in the program's help (an entry that invents an
// option could resolve an abbreviation the program reads differently), and every option the
// help lists must be in the entry (an entry that lacks one lets it pass as unknown — asked,
// but a sign the entry was not read from the program). Subcommands are checked against their
// own help (HelpSub: git {} -h, go help {}, docker {} --help). An entry still marked partial
// or nooptions is reported, not failed.
//
// It ends with counts for CI (.ci/run installs the programs Debian packages cheaply): how many
// entries were checked against a real program, which were skipped and why, and the share of
// the help's options each entry classifies.
func TestEntriesMatchHelp(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every installed program's help: -short leaves it out; the whole suite runs it")
	}
	var checked []string
	skipped := map[string][]string{} // why -> entries
	var shares []string
	helpTotal, helpListed := 0, 0
	skip := func(t *testing.T, name, why string) {
		skipped[why] = append(skipped[why], name)
		t.Skipf("%s: %s", name, why)
	}
	for _, p := range Builtin().Programs() {
		t.Run(p.Names[0], func(t *testing.T) {
			name, ok := installed(p.Names)
			if len(p.Help) == 1 && slices.Equal(p.Help[0], []string{"builtin"}) {
				// A shell builtin: bash's help lists its options.
				_, err := exec.LookPath("bash")
				name, ok = p.Names[0], err == nil
			}
			switch {
			case !ok:
				skip(t, p.Names[0], "not installed")
			case len(p.Help) == 1 && slices.Equal(p.Help[0], []string{"none"}):
				skip(t, name, "the entry says no output of the installed program lists its options")
			}
			help := helpText(name, p.Help)
			if !strings.Contains(help, "-") {
				skip(t, name, "its help lists no options (not the program the entry describes)")
			}
			checked = append(checked, name)
			if why := otherVersion(name, p, help); why != "" {
				// The entry was read from another version: what differs is reported, not
				// failed (CI's Debian and this machine may carry different releases).
				t = lenient(t, why)
			}
			total, listed := 0, 0
			for _, c := range append([]*Command{p}, p.Subcommands()...) {
				text := help
				if c != p {
					if len(c.Help) == 1 && slices.Equal(c.Help[0], []string{"none"}) {
						continue
					}
					text = subHelpText(name, p, c)
				}
				inventedOptions(t, name, c, text)
				n, l := missingOptions(t, name, p, c, text)
				total, listed = total+n, listed+l
			}
			helpTotal, helpListed = helpTotal+total, helpListed+listed
			if total > 0 {
				shares = append(shares, fmt.Sprintf("%s %d/%d", name, listed, total))
			}
		})
	}
	t.Logf("entries checked against an installed program: %d of %d (%s)", len(checked), len(Builtin().Programs()), strings.Join(checked, " "))
	whys := slices.Sorted(maps.Keys(skipped))
	for _, why := range whys {
		t.Logf("entries skipped, %s: %d (%s)", why, len(skipped[why]), strings.Join(skipped[why], " "))
	}
	if helpTotal > 0 {
		t.Logf("options the installed programs' help lists that the entries classify: %d of %d (%.1f%%)", helpListed, helpTotal, 100*float64(helpListed)/float64(helpTotal))
		t.Logf("per entry (classified/listed by help): %s", strings.Join(shares, ", "))
	}
}

var versionRE = regexp.MustCompile(`\b\d+\.\d+(\.\d+)?\b`)

// otherVersion says why the installed program is another version than the one the entry was
// read from (its from line names a version the program's --version output does not show),
// or "".
func otherVersion(name string, p *Command, help string) string {
	want := versionRE.FindString(p.From)
	if want == "" {
		return ""
	}
	var out string
	if p.Version != nil {
		out = run(name, p.Version...)
	} else {
		out = run(name, "--version") + help
	}
	if slices.ContainsFunc(p.Help, func(args []string) bool { return args[0] == "builtin" }) {
		// A builtin's help is bash's, and so is its version.
		out += run("bash", "--version")
	}
	if strings.Contains(out, want) {
		return ""
	}
	return "the entry was read from " + p.From + "; the installed " + name + " is another version"
}

func lenient(t *testing.T, why string) *testing.T {
	t.Logf("%s: differences are reported, not failed", why)
	lenientMode[t] = true
	return t
}

// lenientMode holds the subtests in lenient mode (errorf reads it).
var lenientMode = map[*testing.T]bool{}

// errorf fails t, or logs for a subtest in lenient mode.
func errorf(t *testing.T, format string, args ...any) {
	t.Helper()
	if lenientMode[t] {
		t.Logf(format, args...)
		return
	}
	t.Errorf(format, args...)
}

var optionalPartRE = regexp.MustCompile(`--\[([a-z][a-z-]*)\]([a-z][a-z0-9-]*)`)

// inventedOptions fails for a long option the entry lists that the help does not show.
func inventedOptions(t *testing.T, name string, p *Command, help string) {
	t.Helper()
	if p.parent != nil {
		name += " " + p.Names[0]
	}
	// --[no-]X and --[section-]headers show two spellings each.
	help = optionalPartRE.ReplaceAllString(help, "--$2 --$1$2")
	var like []*Option // options an entry takes from another (like), checked there
	if src, ok := Builtin().programs[p.Like]; ok {
		like = src.Options
	}
	for _, o := range p.Options {
		if slices.Contains(like, o) {
			continue
		}
		for _, s := range o.Spellings {
			if kindOf(s) != kLong {
				continue
			}
			l := s[2:]
			if o.Newer || l == "help" || l == "version" || (strings.HasSuffix(l, "-format") && strings.Contains(help, "TYPE-")) {
				continue
			}
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(l) + `\b`).MatchString(help) {
				errorf(t, "%s: the entry (%s) lists --%s, which %s's help does not", name, o.Pos, l, name)
			}
		}
	}
}

// missingOptions checks that the entry for c lists every option its help shows, and returns
// how many spellings the help shows and how many of them the entry has.
func missingOptions(t *testing.T, name string, p, c *Command, text string) (total, listed int) {
	t.Helper()
	help := helpOptions(text)
	if c.NoOpts {
		// It reads no options: what its help writes with a dash are operands (test -f FILE).
		for _, ho := range help {
			total += len(ho.spellings)
		}
		return total, total
	}
	have := entrySpellings(c, p)
	covered := func(s string) bool {
		if have[s] {
			return true
		}
		_, ok := c.Pattern(s)
		if !ok && c != p && p.Inherit {
			_, ok = p.Pattern(s)
		}
		return ok
	}
	for _, ho := range help {
		for _, s := range ho.spellings {
			total++
			if covered(helpSpelling(s)) {
				listed++
			}
		}
	}
	valuesMissing(t, name, p, c, help)
	filtered := map[string]bool{}
	for _, ho := range help {
		for _, s := range ho.spellings {
			if covered(helpSpelling(s)) {
				filtered[helpSpelling(s)] = true
			}
		}
	}
	maps.Copy(filtered, have)
	missing, lines := missingFrom(help, filtered)
	if len(missing) == 0 {
		return total, listed
	}
	what := name
	if c != p {
		what = name + " " + c.Names[0]
	}
	if *missingFlag {
		var b strings.Builder
		for _, ho := range lines {
			b.WriteString(kbLine(ho) + "\n")
		}
		fmt.Fprintf(os.Stderr, "== %s (%s)\n%s", what, c.Pos, b.String())
	}
	if p.Partial || c.Partial || p.NoOptions {
		t.Logf("%s: the help lists options the entry lacks: %v", what, missing)
		return total, listed
	}
	errorf(t, "%s: the help lists options the entry (%s) lacks: %v", what, c.Pos, missing)
	return total, listed
}

// installed is the first of an entry's names that is on PATH (fd-find installs fdfind).
func installed(names []string) (string, bool) {
	for _, n := range names {
		if _, err := exec.LookPath(n); err == nil {
			return n, true
		}
	}
	return "", false
}

// run runs a program for its help, with no input, a wide terminal and a time limit.
func run(name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "COLUMNS=200", "MANWIDTH=200", "LANG=C", "LC_ALL=C", "PAGER=cat", "MANPAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func helpText(name string, how [][]string) string {
	if len(how) > 0 {
		var b strings.Builder
		for _, args := range how {
			if args[0] == "man" {
				// "help man [PAGE]": the manual page, rendered (the program's own page by default).
				page := args[1:]
				if len(page) == 0 {
					page = []string{name}
				}
				if rest, ok := strings.CutPrefix(page[0], "@/"); ok {
					// A page beside the program's own files: @/ is the folder of its real path.
					bin, _ := exec.LookPath(name)
					real, _ := filepath.EvalSymlinks(bin)
					page = []string{filepath.Join(filepath.Dir(real), rest)}
				}
				b.WriteString(run("man", page...))
				continue
			}
			if args[0] == "builtin" {
				b.WriteString(run("bash", "-c", "help "+name))
				continue
			}
			if args[0] == "keys" {
				// "help keys ARGS": the output lists option names as "name = value" (npm
				// config ls -l); each is the option --name.
				for _, l := range strings.Split(run(name, args[1:]...), "\n") {
					if k, _, ok := strings.Cut(l, " = "); ok && !strings.ContainsAny(k, " ;") {
						b.WriteString("  --" + k + "\n")
					}
				}
				continue
			}
			b.WriteString(run(name, args...))
		}
		return b.String()
	}
	out := run(name, "--help")
	if !strings.Contains(out, "--") {
		out = run(name, "-h")
	}
	return out
}

// subHelpText runs what prints a subcommand's options: its own help lines, else the
// program's HelpSub with the subcommand's name (git {} -h), else "NAME sub --help".
func subHelpText(name string, p, c *Command) string {
	if len(c.Help) > 0 {
		return helpText(name, c.Help)
	}
	tmpl := p.HelpSub
	if tmpl == nil {
		tmpl = []string{"{}", "--help"}
	}
	sub := strings.Fields(strings.ReplaceAll(c.Names[0], "/", " "))
	var args []string
	for _, a := range tmpl {
		if a == "{}" {
			args = append(args, sub...)
		} else {
			args = append(args, a)
		}
	}
	return run(name, args...)
}

// valuesMissing fails for an option whose help line shows a value it requires right after it
// (=X, <x>, an upper-case WORD, a lower-case type word before the description, a file name
// alone on the line) that the entry
// reads as taking none: its value would be read as an operand (go test -cpuprofile FILE, whose file
// the path checks then never saw). Only the spelling the value follows counts (ls -p is
// --indicator-style=slash, and takes none); a COMMAND runs to find's ";", not one value.
// helpOptions' arities are lenient (they only propose lines for -missing: "--cached option,"
// reads as a value there), so a check that fails reads the line strictly (showsValue).
func valuesMissing(t *testing.T, name string, p, c *Command, help []helpOpt) {
	t.Helper()
	for _, ho := range help {
		for _, s := range ho.spellings {
			sp := helpSpelling(s)
			o, a, ok := c.OptionSpelled(sp)
			if !ok && c != p && p.Inherit {
				o, a, ok = p.OptionSpelled(sp)
			}
			if !ok || a != None || o.Newer || slices.Contains(c.HelpOperands, sp) || !showsValue(ho.line, s) {
				continue
			}
			errorf(t, "%s: the help shows %s with a value (%q); the entry (%s) reads it as taking none", name, sp, ho.line, o.Pos)
		}
	}
}

var shownValueRE = regexp.MustCompile(`^(=[^\s.\[]|\s?<[a-z]|\s[A-Z][A-Z0-9_]*(\s{2,}|\t|,|$)|\s[a-z]+(\s{2,}|\t)|\s[a-z]+\.[a-z]+$)`)

// showsValue reports whether the help line shows a value right after the spelling s.
func showsValue(line, s string) bool {
	i := strings.Index(line, s)
	for i >= 0 {
		after := line[i+len(s):]
		if after == "" || !isSpellingChar(after[0]) {
			return shownValueRE.MatchString(after) && !strings.HasPrefix(strings.TrimSpace(after), "COMMAND")
		}
		j := strings.Index(after, s)
		if j < 0 {
			return false
		}
		i += len(s) + j
	}
	return false
}

func isSpellingChar(b byte) bool {
	return b == '-' || b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// TestShowsValue: the strict reading of a value after a spelling, on help lines of the kinds
// the check meets.
func TestShowsValue(t *testing.T) {
	for _, tc := range []struct {
		line, spelling string
		want           bool
	}{
		{"-cpuprofile cpu.out", "-cpuprofile", true}, // a file name, alone on its line (go help testflag)
		{"-o, --output=FILE   write result to FILE", "--output", true},
		{"-b <branch>           create and checkout a new branch", "-b", true},
		{"-S<string>    find filepair whose only one side contains the string.", "-S", true},
		{"--replicas uint                      Number of tasks", "--replicas", true},
		{"-f, --format=FORMAT    Use the output format FORMAT.", "--format", true},
		{"-l --list    list", "-l", false},
		{"-p, --indicator-style=slash   append / indicator to directories", "-p", false},
		{"-M[<n>], --find-renames[=<n>]", "-M", false},
		{"--stat[=<width>[,<name-width>[,<count>]]]", "--stat", false},
		{"-exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;", "-exec", false},
		{"--cached option, any conflicts are left at higher stages in the cache.", "--cached", false},
		{"-1 (\"one\"), --single-transaction", "-1", false},
		{"--heap-prof. (default: 512 * 1024)", "--heap-prof", false},
		{"-EB --endian=big               Assume big endian format", "-EB", false},
		{"--no-recurse-submodules, --recurse-submodules=check|on-demand", "--recurse-submodules", true},
		{"--no-recurse-submodules, --recurse-submodules=check|on-demand", "--no-recurse-submodules", false},
	} {
		if got := showsValue(tc.line, tc.spelling); got != tc.want {
			t.Errorf("showsValue(%q, %s) = %v, want %v", tc.line, tc.spelling, got, tc.want)
		}
	}
}
