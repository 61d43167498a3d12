package bashrules

import (
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// The exec family as data: an option whose knowledge-base entry says it runs code or a
// command (exec) or names a program to run (program) is one no allow rule covers. Partial
// entries are read conservatively: past an option the entry does not know, a cluster's other
// letters and an unknown long option that abbreviates a dangerous one still count, as the
// program might read them so.

// kbExecOption says which option of a command its entry marks as running code or a program.
func kbExecOption(name string, args []Word) string {
	e, ok := knowledge.Lookup(name)
	if !ok {
		return ""
	}
	var kbuf [8]knowledge.Arg
	p := parsedPool.Get().(*knowledge.Parsed)
	defer parsedPool.Put(p)
	e.ParseInto(kbArgs(args, kbuf[:]), p)
	cmd := e
	if p.Sub != nil {
		cmd = p.Sub
	}
	for _, u := range p.Uses {
		if u.Opt.Effects&knowledge.Pipe != 0 && u.HasValue && strings.HasPrefix(strings.TrimSpace(u.Value), "|") {
			return name + " " + u.Spelling + " " + u.Value + " runs a command line"
		}
		if why := dangerWhy(name, u.Spelling, u.Opt.Effects); why != "" {
			return why + alsoSpelled(name, u.Spelling, u.Opt)
		}
		if name == "find" && u.Opt.Effects&knowledge.Write != 0 {
			// find's actions that write or remove what matched: the path stage sees the file
			// -fprint names, not what -delete removes.
			return "find " + u.Spelling + " runs commands or changes files"
		}
	}
	if why := sigilDanger(e, *p, args); why != "" {
		return why
	}
	for _, u := range p.Unknown {
		if why := unknownDanger(name, cmd, e, u, args); why != "" {
			return why
		}
	}
	return ""
}

func dangerWhy(name, spelling string, eff knowledge.Effect) string {
	switch {
	case eff&knowledge.Exec != 0:
		return name + " " + spelling + " runs commands or code"
	case eff&knowledge.Program != 0:
		return name + " " + spelling + " runs a program"
	}
	return ""
}

// alsoSpelled names an option's other spellings, so that the reason names the one a person
// knows.
func alsoSpelled(name, spelling string, o *knowledge.Option) string {
	var others []string
	for _, sp := range o.Spellings {
		if sp != spelling {
			others = append(others, name+" "+sp)
		}
	}
	if len(others) == 0 {
		return ""
	}
	return " (also spelled " + strings.Join(others, ", ") + ")"
}

// unknownDanger looks past an option the entry does not know: the rest of its cluster
// (-Qz may be -Q -z) and the dangerous long options an unknown or ambiguous name abbreviates.
func unknownDanger(name string, cmd, prog *knowledge.Command, u knowledge.Unknown, args []Word) string {
	w := args[u.Word].Value
	if strings.HasPrefix(u.Text, "--") {
		n := u.Text[2:]
		if len(n) < 2 {
			return ""
		}
		for _, c := range []*knowledge.Command{cmd, prog} {
			for _, o := range c.Options {
				for _, sp := range o.Spellings {
					if strings.HasPrefix(sp, "--"+n) && o.Effects.Dangerous() {
						return dangerWhy(name, sp, o.Effects)
					}
				}
			}
		}
		return ""
	}
	at := strings.Index(w, u.Text[1:])
	for j := max(at, 1); j < len(w); j++ {
		ch := w[j]
		if !('a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z') {
			break // an attached value follows
		}
		for _, c := range []*knowledge.Command{cmd, prog} {
			if o, ok := c.Short(ch); ok && o.Effects.Dangerous() {
				return dangerWhy(name, "-"+string(ch), o.Effects)
			}
		}
	}
	return ""
}

// kbExecCommands are the programs whose entries name an option that runs code or a program.
var kbExecCommands = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, e := range knowledge.Builtin().Programs() {
		cmds := append([]*knowledge.Command{e}, e.Subcommands()...)
		for _, c := range cmds {
			for _, o := range c.Options {
				if o.Effects.Dangerous() {
					for _, n := range e.Names {
						out[n] = true
					}
				}
			}
		}
	}
	return out
})

// programEnv says why a variable set for a command changes what it runs, when the command's
// knowledge-base entry says it honours the variable that way (CC=x make, RUSTC_WRAPPER=x
// cargo build, GOFLAGS=-toolexec=x go build).
func programEnv(w0 Word, name string) string {
	if !w0.Known {
		return ""
	}
	prog, _ := commandName(w0)
	e, ok := knowledge.Lookup(prog)
	if !ok {
		return ""
	}
	if eff := e.Env[name]; eff.Dangerous() {
		return prog + " " + map[bool]string{true: "runs as code", false: "runs as a program"}[eff&knowledge.Exec != 0]
	}
	return ""
}
