package bashrules

import (
	"fmt"

	"github.com/reinsdev/reins/permission"
)

// verdict orders what a part of a command needs, from nothing to a denial.
type verdict uint8

const (
	vAllow   verdict = iota
	vNeeds           // nothing allows it: the person may
	vUnsure          // the analysis cannot see what it does: only an exact rule or the person may allow it
	vAsk             // a path or directory change needs the person's approval
	vAskRule         // an ask rule matched: bypass-immune
	vSafety          // a safety check: bypass-immune
	vDeny
)

var verdictNames = [...]string{"allow", "needs approval", "unsure", "ask", "ask (rule)", "ask (safety check)", "deny"}

func (v verdict) String() string { return verdictNames[v] }

// result is the verdict for one command, redirect or check.
type result struct {
	v verdict
	// d is the decision to surface for vUnsure and worse, or the allow reason.
	d permission.Decision
	// suggest are rule contents that would allow a vNeeds command.
	suggest []string
}

func worse(a, b result) result {
	if b.v > a.v {
		return b
	}
	return a
}

var allowed = result{v: vAllow}

// verdicts builds the verdicts of one decision: the answers of rules, of what the analysis
// cannot see and of safety checks, with their messages, trace steps and effects, and the
// reasons they carry, cut from one chunk (see reason).
type verdicts struct {
	rec     *recorder
	command string
	// denyAsk reports that some Bash deny or ask rule exists: what the analysis cannot see is
	// then a safety ask, which neither bypass mode nor a tool-wide allow overrides.
	denyAsk bool
	// reasons is where the verdicts' reasons are cut from (see reason); the decision
	// returned points into it, so it is never part of the checker.
	reasons []permission.Reason
}

func reasonText(d permission.Decision) string {
	if d.Reason != nil {
		return d.Reason.String()
	}
	return d.Message
}

func (vs *verdicts) deniedMessage() string {
	return fmt.Sprintf("Permission to use Bash with command %s has been denied.", vs.command)
}

func askDecision(msg string, rt permission.ReasonType, detail string) permission.Decision {
	return permission.Decision{Behavior: permission.Ask, Message: msg, Reason: &permission.Reason{Type: rt, Detail: detail}}
}

func (vs *verdicts) ruleResult(v verdict, r *permission.Rule, what string) result {
	switch v {
	case vDeny:
		vs.rec.noteRule("bash: deny rule", "deny", what, r)
		return result{v: vDeny, d: permission.Decision{Behavior: permission.Deny, Message: vs.deniedMessage(),
			Reason: vs.reason(permission.Reason{Type: permission.ReasonRule, Rule: r})}}
	case vAskRule:
		vs.rec.noteRule("bash: ask rule", "ask", what, r)
		return result{v: vAskRule, d: permission.Decision{Behavior: permission.Ask, Message: permission.RequestMessage("Bash"),
			Reason: vs.reason(permission.Reason{Type: permission.ReasonRule, Rule: r})}}
	}
	vs.rec.noteRule("bash: allow rule", "allow", what, r)
	return result{v: vAllow, d: permission.Decision{Behavior: permission.Allow, Reason: vs.reason(permission.Reason{Type: permission.ReasonRule, Rule: r})}}
}

// unseen is the answer for what the analysis cannot see (a script that is not literal, a
// script read from input, arithmetic that may run commands, words only known at run time):
// with a Bash deny or ask rule in force it is a safety ask, since the hidden part may be what
// a rule names; otherwise it is unsure.
func (vs *verdicts) unseen(why string) result {
	if vs.denyAsk {
		return result{v: vSafety, d: askDecision(
			fmt.Sprintf("This command needs approval: %s, so your deny and ask rules cannot be checked against it.", why), permission.ReasonSafetyCheck, why)}
	}
	return unsure(why)
}

func unsure(why string) result {
	return result{v: vUnsure, d: askDecision(
		fmt.Sprintf("This command needs approval: %s.", why), permission.ReasonOther, why)}
}

func allowDecision(t permission.ReasonType, detail string) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: t, Detail: detail}}
}

// allowDecision is allowDecision with its reason cut from the decision's chunk.
func (vs *verdicts) allowDecision(t permission.ReasonType, detail string) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Reason: vs.reason(permission.Reason{Type: t, Detail: detail})}
}

// reason returns a copy of r cut from a chunk shared by the reasons of one decision: most
// parts of a command line are allowed, each with its reason, and one allocation serves them.
// Each reason has its own element, so a caller changing one changes no other.
func (vs *verdicts) reason(r permission.Reason) *permission.Reason {
	if len(vs.reasons) == cap(vs.reasons) {
		vs.reasons = make([]permission.Reason, 0, 8)
	}
	vs.reasons = append(vs.reasons, r)
	return &vs.reasons[len(vs.reasons)-1]
}

func classify(d permission.Decision) verdict {
	switch d.Behavior {
	case permission.Allow:
		return vAllow
	case permission.Deny:
		return vDeny
	}
	if d.Reason != nil {
		switch {
		case d.Reason.Type == permission.ReasonSafetyCheck:
			return vSafety
		case d.Reason.Type == permission.ReasonRule && d.Reason.Rule != nil && d.Reason.Rule.Behavior == permission.Ask:
			return vAskRule
		}
	}
	return vAsk
}

// protectedAsk reports the write check's ask for a protected file (not for a suspicious path
// pattern such as ./..., which only matters for paths the command is known to use).
func protectedAsk(r result) bool {
	return r.v == vSafety && r.d.Reason != nil && r.d.Reason.ClassifierApprovable
}

// hidden is the answer for a command whose real program the analysis cannot see.
func (vs *verdicts) hidden(c *Command, why string) result {
	defer func() {
		v := vUnsure
		if vs.denyAsk {
			v = vSafety
		}
		vs.rec.effect("exec", why, "command names", v)
	}()
	if vs.denyAsk {
		msg := fmt.Sprintf("This command needs approval: %s, so your deny and ask rules cannot be checked against it.", why)
		vs.rec.note("bash: effect", "ask (safety check)", c.Text+": "+why)
		return result{v: vSafety, d: askDecision(msg, permission.ReasonSafetyCheck, why)}
	}
	vs.rec.note("bash: effect", "unsure", c.Text+": "+why)
	return result{v: vUnsure, d: askDecision(fmt.Sprintf("This command needs approval: %s.", why), permission.ReasonOther, why)}
}

// execAsk is the answer for an option that runs or writes what the analysis does not follow
// (the exec family). No allow rule covers it — not a rule for the command, not a tool-wide
// Bash allow, not bypass mode — so it is a safety ask; auto mode's classifier may approve it.
func (vs *verdicts) execAsk(c *Command, why string) result {
	vs.rec.effect("exec", why, "exec-family check", vSafety)
	vs.rec.note("bash: effect", "ask (safety check)", c.Text+": "+why)
	msg := fmt.Sprintf("This command needs approval: %s; allow rules and bypass mode do not cover it.", why)
	if vs.denyAsk {
		msg = fmt.Sprintf("This command needs approval: %s; allow rules and bypass mode do not cover it, and what it runs cannot be checked against your deny and ask rules.", why)
	}
	return result{v: vSafety, d: permission.Decision{Behavior: permission.Ask, Message: msg,
		Reason: &permission.Reason{Type: permission.ReasonSafetyCheck, Detail: "exec-family option: " + why, ClassifierApprovable: true}}}
}

func (vs *verdicts) opaqueAsk(c *Command, why, unchecked string) result {
	vs.rec.effect("exec", why, "code the analysis cannot see", vSafety)
	vs.rec.note("bash: effect", "ask (safety check)", c.Text+": "+why)
	msg := fmt.Sprintf("This command needs approval: %s, so %s; allow rules and bypass mode do not cover it.", why, unchecked)
	return result{v: vSafety, d: permission.Decision{Behavior: permission.Ask, Message: msg,
		Reason: vs.reason(permission.Reason{Type: permission.ReasonSafetyCheck, Detail: "opaque code: " + why, ClassifierApprovable: true})}}
}

func (vs *verdicts) dangerResult(c *Command, w Word, abs, why string) result {
	op := "rm"
	if c != nil && len(c.Argv) > 0 {
		op, _ = commandName(c.Argv[0])
	}
	msg := fmt.Sprintf("Dangerous %s operation detected: '%s'. It would remove %s; this needs your explicit approval and cannot be allowed by rules or modes.", op, w.Src, why)
	vs.rec.note("bash: dangerous removal", "ask", msg)
	return result{v: vSafety, d: permission.Decision{Behavior: permission.Ask, Message: msg, BlockedPath: abs,
		Reason: &permission.Reason{Type: permission.ReasonSafetyCheck, Detail: "dangerous removal of " + why}}}
}

// fileCodeAsk is the answer for an interpreter running a program file or module the analysis
// does not read, with a Bash deny or ask rule in force: a safety ask that only an allow rule
// naming the file or module settles (opaque.go, fileCode).
func (vs *verdicts) fileCodeAsk(c *Command, why, file string) result {
	vs.rec.effect("exec", why, "code the analysis cannot see", vSafety)
	vs.rec.note("bash: effect", "ask (safety check)", c.Text+": "+why)
	msg := fmt.Sprintf("This command needs approval: %s, so your Bash deny and ask rules cannot be checked against it; an allow rule that names %s covers it, a rule for the interpreter alone and bypass mode do not.", why, file)
	return result{v: vSafety, d: permission.Decision{Behavior: permission.Ask, Message: msg,
		Reason: vs.reason(permission.Reason{Type: permission.ReasonSafetyCheck, Detail: "opaque code: " + why, ClassifierApprovable: true})}}
}
