package bashrules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// cdState is the one directory change of a command line.
type cdState struct {
	each  map[*Command]result // the verdict for every cd, pushd and popd
	cmd   *Command            // the directory change in effect, if any
	abs   string
	pc    *permission.Context
	main  bool // runs in the main shell, so that later commands run in the new directory
	whole result
}

// findCd looks at the directory changes, the programs whose entries say "role chdir" (cd,
// pushd; popd, with "stack", always asks). One cd into the working directories is followed:
// paths after it resolve against the new directory. Several, one outside, or one combined
// with git or an output redirection ask.
// It is long (over 80 lines) because each way a directory change can go wrong is one case of
// one loop; splitting it would scatter the cases that must be read together.
func (ps *pathChecks) findCd(a *Analysis) {
	// The state lives in the checker and its map is made at the first cd: most command lines
	// have none, and these are two allocations of every decision.
	st := &ps.cdBuf
	var changes []*Command
	bad := allowed
	for _, c := range a.Commands {
		if c.Speculative || c.Kind != KindCall || len(c.Argv) == 0 {
			continue
		}
		name, _ := commandName(c.Argv[0])
		stack, ok := roles().chdir[name]
		if !ok {
			continue
		}
		if stack {
			st.set(c, cdAsk(name+" changes to a directory from the directory stack"))
			continue
		}
		args := c.Argv[1:]
		for len(args) > 0 && args[0].Known && (args[0].Value == "-L" || args[0].Value == "-P" || args[0].Value == "-e" || args[0].Value == "-@" || args[0].Value == "--") {
			args = args[1:]
		}
		var abs string
		switch {
		case len(args) == 0:
			abs = ps.pc.Home()
		case len(args) > 1:
			st.set(c, cdAsk("cd with several arguments"))
			continue
		case !args[0].IsPathLike() || args[0].Value == "-" || c.OtherDir:
			st.set(c, cdAsk("cd to a directory the analysis cannot resolve ("+args[0].Src+")"))
			continue
		default:
			p := args[0].Value
			if strings.HasPrefix(p, "~") && args[0].Tilde != TildeHome {
				p = "./" + p
			}
			var err error
			if abs, err = ps.pc.ResolvePath(p); err != nil {
				st.set(c, cdAsk("cd target: "+err.Error()))
				continue
			}
		}
		if abs == ps.pc.Cwd() {
			st.set(c, result{v: vAllow, d: allowDecision(permission.ReasonWorkingDir, "cd to the current directory changes nothing")})
			continue
		}
		if abs == "" || !ps.pc.InWorkingDirs(abs) {
			st.set(c, result{v: vAsk, d: permission.Decision{Behavior: permission.Ask, BlockedPath: abs,
				Message: fmt.Sprintf("cd to '%s' needs approval: it is outside the working directories (%s).", abs, strings.Join(ps.pc.WorkingDirs(), ", ")),
				Reason:  &permission.Reason{Type: permission.ReasonWorkingDir, Detail: "cd outside the working directories"}}})
			changes = append(changes, c)
			continue
		}
		if d := ps.pc.CheckRead(ps.ctx, abs); d.Behavior == permission.Deny {
			st.set(c, result{v: vDeny, d: d})
			changes = append(changes, c)
			continue
		}
		st.set(c, result{v: vAllow, d: allowDecision(permission.ReasonWorkingDir, "changes to a directory inside the working directories")})
		changes = append(changes, c)
		st.abs = abs
	}
	switch {
	case len(changes) > 1:
		bad = worse(bad, result{v: vAsk, d: askDecision("Multiple directory changes in one command require approval for clarity.", permission.ReasonOther, "several cd commands")})
	case len(changes) == 1 && st.abs != "":
		st.cmd = changes[0]
		st.pc = ps.pc.WithCwd(st.abs)
		st.main = !st.cmd.Subshell && !st.cmd.Fn && !st.cmd.Script
		for _, c := range a.Commands {
			if n, _ := c.Name(); n == "git" && !c.Speculative {
				bad = worse(bad, result{v: vAsk, d: askDecision("Compound commands with cd and git require approval to prevent bare repository attacks.", permission.ReasonOther, "cd and git")})
				break
			}
		}
		for _, rd := range a.Redirects {
			if (rd.Kind == RedirOut || rd.Kind == RedirInOut) && !exemptOutput(rd.Target) {
				bad = worse(bad, result{v: vAsk, d: askDecision("Commands that change directory and write through an output redirection require approval: the file's directory cannot be known for sure.", permission.ReasonOther, "cd and output redirection")})
				break
			}
		}
	}
	if bad.v != vAllow {
		ps.rec.note("bash: cd", bad.v.String(), bad.d.Message)
	}
	for c, r := range st.each {
		if r.v != vAllow {
			ps.rec.note("bash: cd", r.v.String(), c.Text+": "+r.d.Message)
		}
	}
	st.whole = bad
	ps.cd = st
}

func (st *cdState) set(c *Command, r result) {
	if st.each == nil {
		st.each = map[*Command]result{}
	}
	st.each[c] = r
}

// cdAsk is the ask for a directory change the analysis cannot follow. It is never settled by
// an allow rule: every path after it would be resolved in the wrong directory.
func cdAsk(why string) result {
	return result{v: vAsk, d: askDecision(fmt.Sprintf("This command needs approval: %s.", why), permission.ReasonOther, why)}
}

// cwds returns the contexts a command's relative paths resolve in: the session's, the one
// after the cd, or both when the command may run in either.
func (ps *pathChecks) cwds(wh where) []*permission.Context {
	st := ps.cd
	if st == nil || st.cmd == nil {
		return ps.onlyPC[:]
	}
	both := []*permission.Context{ps.pc, st.pc}
	switch {
	case !st.main || wh.Fn || st.cmd.Loop:
		return both
	case slices.Contains(wh.Guards, st.cmd):
		return []*permission.Context{st.pc}
	case wh.Start > st.cmd.Start:
		return both
	}
	return ps.onlyPC[:]
}
