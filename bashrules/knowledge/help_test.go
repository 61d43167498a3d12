package knowledge

import (
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
func TestEntriesMatchHelp(t *testing.T) {
	for _, p := range Builtin().Programs() {
		name := p.Names[0]
		t.Run(name, func(t *testing.T) {
			if _, err := exec.LookPath(name); err != nil {
				t.Skipf("%s is not installed", name)
			}
			if len(p.Help) == 1 && slices.Equal(p.Help[0], []string{"none"}) {
				t.Skipf("%s: the entry says no output of the installed program lists its options", name)
			}
			help := helpText(name, p.Help)
			if !strings.Contains(help, "--") {
				t.Skipf("%s --help lists no long options (not the program the entry describes)", name)
			}
			listed := map[string]bool{}
			for _, o := range p.Options {
				for _, s := range o.Spellings {
					if kindOf(s) != kLong {
						continue
					}
					l := s[2:]
					listed[l] = true
					if l == "help" || l == "version" || (strings.HasSuffix(l, "-format") && strings.Contains(help, "TYPE-")) {
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
