package knowledge

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/bash-knowledge.md")

const listFile = "../../docs/bash-knowledge.md"

// TestProgramListIsCurrent keeps docs/bash-knowledge.md, the list docs/security.md points to,
// equal to the entries (go test ./bashrules/knowledge -run TestProgramListIsCurrent -update).
func TestProgramListIsCurrent(t *testing.T) {
	got := programList(Builtin())
	if *update {
		if err := os.WriteFile(listFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(listFile)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s is out of date: run go test ./bashrules/knowledge -run TestProgramListIsCurrent -update", listFile)
	}
}

func programList(b *Base) string {
	var sb strings.Builder
	programs, options := 0, 0
	var rows []string
	for _, p := range b.Programs() {
		programs++
		n := len(p.Options)
		var subs, dangerous []string
		for _, o := range p.Options {
			if o.Effects.Dangerous() {
				dangerous = append(dangerous, "`"+o.Long()+"`")
			}
		}
		for _, s := range p.Subcommands() {
			n += len(s.Options)
			subs = append(subs, s.Names[0])
			for _, o := range s.Options {
				if o.Effects.Dangerous() {
					dangerous = append(dangerous, "`"+s.Names[0]+" "+o.Long()+"`")
				}
			}
		}
		options += n
		kind := "complete"
		if p.Partial {
			kind = "partial"
		}
		sub := ""
		if len(subs) > 0 {
			sub = fmt.Sprintf("%d", len(subs))
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %d | %s | %s | %s |", strings.Join(p.Names, ", "), kind, n, sub,
			strings.Join(dangerous, " "), strings.SplitN(p.Pos, ":", 2)[0]))
	}
	fmt.Fprintf(&sb, "# Programs the Bash check knows\n\n")
	fmt.Fprintf(&sb, "Generated from `bashrules/knowledge/programs/*.kb` by `TestProgramListIsCurrent`; do not edit.\n")
	fmt.Fprintf(&sb, "%d programs, %d options. A complete entry lists every option: one it does not list is not\n", programs, options)
	fmt.Fprintf(&sb, "covered by an allow rule. A partial entry's facts hold, but what it lacks says nothing.\n")
	fmt.Fprintf(&sb, "The last column but one lists the options that run code or name a program (the exec family).\n\n")
	fmt.Fprintf(&sb, "| program | entry | options | subcommands | runs code or a program | file |\n|---|---|---|---|---|---|\n")
	sb.WriteString(strings.Join(rows, "\n") + "\n")
	return sb.String()
}
