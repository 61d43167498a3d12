package bashrules

import (
	"context"
	"slices"
	"strings"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
)

// Effect is one thing a simple command does, and the check that judged it.
type Effect struct {
	// Kind is read, read below, write, remove, remove below, argument (a word of an unknown
	// command that names a file), exec (an option or builtin that runs or binds programs),
	// runs (a command it runs, judged as if it stood alone) or network.
	Kind string `json:"kind"`
	// Target is the path, the option, or the command run.
	Target string `json:"target"`
	// Check names what judged it: the Read check, the Edit check, deny and ask rules, the
	// exec-family check, or netCheck for network use (which no check limits).
	Check string `json:"check"`
	// Outcome is the check's verdict: allow, needs approval, ask, ask (safety check), deny...
	Outcome string `json:"outcome"`
}

// CommandReport is one simple command of a command line with its effects and its verdict.
type CommandReport struct {
	Command string   `json:"command"`
	Via     string   `json:"via,omitempty"`
	Effects []Effect `json:"effects"`
	Verdict string   `json:"verdict"`
	// Reason says what decided the command: a rule, the read-only set, an effect's check.
	Reason string `json:"reason,omitempty"`
}

// Explain decides a command like [Check] and reports, per simple command, the effects the
// analysis found and the check that judged each. Output redirections are reported as
// commands of their own ("> file").
func Explain(ctx context.Context, pc *permission.Context, command string) (permission.Decision, []CommandReport) {
	k := newChecker(ctx, pc, command)
	k.rec.effects = map[*Command][]Effect{}
	d := k.run()
	var out []CommandReport
	if k.memo.a == nil {
		return d, nil
	}
	for _, c := range k.memo.a.Commands {
		r, ok := k.memo.result(c)
		if !ok || (c.Speculative && r.v != vDeny && r.v != vAskRule) {
			continue
		}
		rep := CommandReport{Command: c.Text, Via: c.Via, Effects: k.rec.effects[c], Verdict: r.v.String(), Reason: reasonText(r.d)}
		if rep.Effects == nil {
			rep.Effects = []Effect{}
		}
		if r.v == vNeeds {
			rep.Reason = "no rule allows it"
		}
		out = append(out, rep)
	}
	if red := k.rec.effects[nil]; len(red) > 0 {
		for _, e := range red {
			out = append(out, CommandReport{Command: "redirect " + e.Target, Effects: []Effect{e}, Verdict: e.Outcome})
		}
	}
	return d, out
}

// effect records an effect of the command being decided, when Explain asked for them.
func (r *recorder) effect(kind, target, check string, v verdict) {
	if r.effects == nil {
		return
	}
	r.effects[r.cur] = append(r.effects[r.cur], Effect{Kind: kind, Target: target, Check: check, Outcome: v.String()})
}

// networkEffect records that a command uses the network, as its entry's network role says:
// the whole program (curl, ssh) or the subcommands named (git push, npm install).
func (r *recorder) networkEffect(c *Command, name string) {
	if r.effects == nil || c.Kind != KindCall {
		return
	}
	if what, ok := networkUse(name, c.Argv[1:]); ok {
		r.effect("network", what, netCheck, vAllow)
	}
}

// networkUse says whether a command of the program uses the network, and names what does.
func networkUse(name string, args []Word) (string, bool) {
	e, ok := knowledge.Facts(name)
	if !ok {
		return "", false
	}
	subs, ok := e.Role(knowledge.RoleNetwork)
	if !ok {
		return "", false
	}
	if len(subs) == 0 {
		return name, true
	}
	sub := subcommandOf(e, args)
	if sub != "" && slices.Contains(subs, sub) {
		return name + " " + sub, true
	}
	return "", false
}

// subcommandOf is the canonical name of the subcommand a command runs, as its entry reads
// the words (past global options, through aliases and abbreviations), or its first operand
// for an entry with no subcommand table; "" when there is none.
func subcommandOf(e *knowledge.Command, args []Word) string {
	if len(e.Subcommands()) == 0 {
		for _, a := range args {
			if !a.Known {
				return ""
			}
			if !strings.HasPrefix(a.Value, "-") {
				return a.Value
			}
		}
		return ""
	}
	var kbuf [8]knowledge.Arg
	p := parsedPool.Get().(*knowledge.Parsed)
	defer parsedPool.Put(p)
	e.ParseInto(kbArgs(args, kbuf[:]), p)
	if p.Sub == nil {
		return ""
	}
	return p.Sub.Names[0]
}

// netCheck names the check of network use: there is none; a rule for the command is what
// allows it to connect.
const netCheck = "no check (network use is allowed with the command)"
