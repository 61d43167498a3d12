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
	programs, options, tables, readOnly := 0, 0, 0, 0
	var rows []string
	for _, p := range b.Programs() {
		programs++
		if !p.NoOptions {
			tables++
		}
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
		switch {
		case p.NoOptions:
			kind = "roles only"
		case p.Partial:
			kind = "partial"
		}
		if p.ReadOnly {
			kind += ", read-only"
			readOnly++
		}
		sub := ""
		if len(subs) > 0 {
			sub = fmt.Sprintf("%d", len(subs))
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %d | %s | %s | %s | %s |", strings.Join(p.Names, ", "), kind, n, sub,
			strings.Join(dangerous, " "), roleList(p), strings.SplitN(p.Pos, ":", 2)[0]))
	}
	fmt.Fprintf(&sb, "# Programs the Bash check knows\n\n")
	fmt.Fprintf(&sb, "Generated from `bashrules/knowledge/programs/*.kb` by `TestProgramListIsCurrent`; do not edit.\n")
	fmt.Fprintf(&sb, "%d entries (%d of them option tables), %d options. A complete entry lists every option: one it\n", programs, tables, options)
	fmt.Fprintf(&sb, "does not list is not covered by an allow rule. A partial entry's facts hold, but what it lacks\n")
	fmt.Fprintf(&sb, "says nothing. A roles-only entry (nooptions) is no option table: rules read the program as one\n")
	fmt.Fprintf(&sb, "with no entry; its options are those its roles need. \"runs code or a program\" lists the\n")
	fmt.Fprintf(&sb, "options of the exec family; \"roles\" what the program does with its arguments. A read-only\n")
	fmt.Fprintf(&sb, "entry (flags readonly, %d of them) is allowed without a rule when its options keep it so and every\n", readOnly)
	fmt.Fprintf(&sb, "path it names passes the Read check; where read-only code is registered for some of its names,\n")
	fmt.Fprintf(&sb, "under those alone (awk, not gawk).\n\n")
	fmt.Fprintf(&sb, "| program | entry | options | subcommands | runs code or a program | roles | file |\n|---|---|---|---|---|---|---|\n")
	sb.WriteString(strings.Join(rows, "\n") + "\n")
	return sb.String()
}

// roleList is an entry's roles with their words, in a fixed order.
func roleList(p *Command) string {
	var out []string
	for _, r := range []string{RoleInterpreter, RoleShell, RoleRunner, RoleDBClient, RoleLauncher, RoleLocal, RoleData, RoleGlobHazard, RoleCodeModules, RolePaths, RoleWrapper, RoleChdir, RoleSeesCode, RolePrintsNames} {
		if w, ok := p.Role(r); ok {
			if len(w) > 0 {
				r += " " + strings.Join(w, " ")
			}
			out = append(out, r)
		}
	}
	return strings.Join(out, "; ")
}
