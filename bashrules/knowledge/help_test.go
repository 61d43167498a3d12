package knowledge

import (
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEntriesMatchHelp proves the entries against the installed programs: every long option an
// entry lists must appear in the program's --help (or -h) output. An entry that invents an
// option could resolve an abbreviation the program reads differently. Options the help lists
// that a complete entry lacks are reported, not failed: help texts do not list every spelling.
//
// It ends with a count for CI (.ci/run installs the programs Debian packages cheaply): how many
// entries were checked against a real program, and which were skipped and why.
func TestEntriesMatchHelp(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every installed program's help: -short leaves it out; the whole suite runs it")
	}
	var checked []string
	skipped := map[string][]string{} // why -> entries
	skip := func(t *testing.T, name, why string) {
		skipped[why] = append(skipped[why], name)
		t.Skipf("%s: %s", name, why)
	}
	for _, p := range Builtin().Programs() {
		t.Run(p.Names[0], func(t *testing.T) {
			name, ok := installed(p.Names)
			switch {
			case !ok:
				skip(t, p.Names[0], "not installed")
			case len(p.Help) == 1 && slices.Equal(p.Help[0], []string{"none"}):
				skip(t, name, "the entry says no output of the installed program lists its options")
			}
			help := helpText(name, p.Help)
			if !strings.Contains(help, "--") {
				skip(t, name, "its --help lists no long options (not the program the entry describes)")
			}
			checked = append(checked, name)
			listed := map[string]bool{}
			for _, o := range p.Options {
				for _, s := range o.Spellings {
					if kindOf(s) != kLong {
						continue
					}
					l := s[2:]
					listed[l] = true
					if o.Newer || l == "help" || l == "version" || (strings.HasSuffix(l, "-format") && strings.Contains(help, "TYPE-")) {
						continue
					}
					if !regexp.MustCompile(`--` + regexp.QuoteMeta(l) + `\b`).MatchString(help) {
						t.Errorf("%s: the entry (%s) lists --%s, which %s --help does not", name, o.Pos, l, name)
					}
				}
			}
			if p.Partial {
				return
			}
			var missing []string
			for _, m := range regexp.MustCompile(`(?m)^\s.*?--([a-z][a-z0-9-]+)`).FindAllStringSubmatch(help, -1) {
				if !listed[m[1]] && !slices.Contains(missing, m[1]) {
					missing = append(missing, m[1])
				}
			}
			if len(missing) > 0 {
				t.Logf("%s --help lists options the entry lacks: %v", name, missing)
			}
		})
	}
	t.Logf("entries checked against an installed program: %d of %d (%s)", len(checked), len(Builtin().Programs()), strings.Join(checked, " "))
	whys := slices.Sorted(maps.Keys(skipped))
	for _, why := range whys {
		t.Logf("entries skipped, %s: %d (%s)", why, len(skipped[why]), strings.Join(skipped[why], " "))
	}
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

func helpText(name string, how [][]string) string {
	if len(how) > 0 {
		var b strings.Builder
		for _, args := range how {
			out, _ := exec.Command(name, args...).CombinedOutput()
			b.Write(out)
		}
		return b.String()
	}
	out, _ := exec.Command(name, "--help").CombinedOutput()
	if !strings.Contains(string(out), "--") {
		out, _ = exec.Command(name, "-h").CombinedOutput()
	}
	return string(out)
}
