package cmdline

import (
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// The peels of the wrappers whose entries are in knowledge/programs/runs.kb: what their
// wrapper roles cannot state as data.

func init() {
	registerPeel("timeout", peelTimeout)
	registerPeel("nice", peelNice)
	registerPeel("stdbuf", peelStdbuf)
	registerPeel("sudo", peelSudo)
	registerPeel("watch", peelWatch)
	registerPeel("chrt", peelChrt)
	registerPeel("taskset", peelTaskset)
	registerPeel("flock", peelFlock)
	registerPeel("chroot", peelChroot)
	registerPeel("su", peelSu)
	registerPeel("runuser", peelRunuser)
	registerPeel("script", peelScript)
	registerPeel("xargs", peelXargs)
}

// sudoPeel reads sudo's options as the peel always has: -h takes a value (sudo -h HOST), where
// the entry reads -h alone as --help.
var sudoPeel = flagsPeel("AbEHiKklnPSsVvBN", "ughpCDrtUTR",
	[]string{"askpass", "background", "preserve-env", "set-home", "login", "non-interactive", "stdin", "shell", "reset-timestamp", "remove-timestamp", "bell"},
	[]string{"user", "group", "host", "prompt", "close-from", "chdir", "role", "type", "other-user", "command-timeout", "chroot"})

// peelSudo: with -D (--chdir) the command runs in another directory, where its relative paths
// are not the ones the analysis resolves.
func peelSudo(args []Word) (int, *Word, bool, bool) {
	inner, script, otherDir, ok := sudoPeel(args)
	if ok {
		for _, a := range args[:min(inner, len(args))] {
			if a.Value == "-D" || strings.HasPrefix(a.Value, "--chdir") {
				otherDir = true
			}
		}
	}
	return inner, script, otherDir, ok
}

var durationRE = LazyRE(`^[0-9]+(\.[0-9]+)?[smhd]?$`)

var niceNumRE = LazyRE(`^-[0-9]+$`)

var stdbufRE = LazyRE(`^(-[ioe]\S+|--(input|output|error)=\S+)$`)

func peelTimeout(args []Word) (int, *Word, bool, bool) {
	i, ok := skipOptions(args, "v", "sk", []string{"preserve-status", "foreground", "verbose"}, []string{"signal", "kill-after"})
	if !ok || i >= len(args) || !args[i].Known || !durationRE().MatchString(args[i].Value) {
		return i, nil, false, false
	}
	i++
	if i < len(args) && args[i].Known && args[i].Value == "--" {
		i++
	}
	return i, nil, false, true
}

func peelNice(args []Word) (int, *Word, bool, bool) {
	i := 0
	for i < len(args) && args[i].Known {
		v := args[i].Value
		switch {
		case v == "--":
			return i + 1, nil, false, true
		case v == "-n":
			i += 2
		case niceNumRE().MatchString(v), strings.HasPrefix(v, "-n") && len(v) > 2, strings.HasPrefix(v, "--adjustment="):
			i++
		case strings.HasPrefix(v, "-"):
			return i, nil, false, false
		default:
			return i, nil, false, true
		}
	}
	return i, nil, false, i <= len(args)
}

func peelStdbuf(args []Word) (int, *Word, bool, bool) {
	i := 0
	for i < len(args) && args[i].Known && stdbufRE().MatchString(args[i].Value) {
		i++
	}
	if i < len(args) && args[i].Known && args[i].Value == "--" {
		return i + 1, nil, false, true
	}
	if i < len(args) && args[i].Known && strings.HasPrefix(args[i].Value, "-") {
		return i, nil, false, false
	}
	return i, nil, false, true
}

func peelWatch(args []Word) (int, *Word, bool, bool) {
	i := 0
	exec := false
	for i < len(args) && args[i].Known {
		v := args[i].Value
		switch {
		case v == "--":
			i++
		case v == "-n" || v == "--interval" || v == "-q" || v == "--equexit":
			i += 2
			continue
		case v == "-x" || v == "--exec":
			exec = true
			i++
			continue
		case strings.HasPrefix(v, "--interval=") || strings.HasPrefix(v, "--differences") || strings.HasPrefix(v, "-n"):
			i++
			continue
		case strings.HasPrefix(v, "--") && slices.Contains([]string{"--no-title", "--beep", "--errexit", "--chgexit", "--color", "--no-color", "--precise", "--no-wrap", "--no-linewrap"}, v):
			i++
			continue
		case strings.HasPrefix(v, "-") && len(v) > 1 && strings.Trim(v[1:], "dtbegcpwr") == "":
			i++
			continue
		case strings.HasPrefix(v, "-") && len(v) > 1:
			return i, nil, false, false
		}
		break
	}
	if exec || i >= len(args) {
		return i, nil, false, true
	}
	// Without -x, watch joins its arguments and runs them with sh -c.
	joined := Word{Known: true}
	var vals []string
	for _, a := range args[i:] {
		if !a.Known {
			return i, nil, false, false
		}
		vals = append(vals, a.Value)
	}
	joined.Value = strings.Join(vals, " ")
	return len(args), &joined, false, true
}

func peelChrt(args []Word) (int, *Word, bool, bool) {
	i, ok := skipOptions(args, "abdfiomRrv", "TPD", []string{"all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr", "reset-on-fork", "verbose", "max"}, []string{"sched-runtime", "sched-period", "sched-deadline"})
	if !ok || i >= len(args) {
		return i, nil, false, false
	}
	return i + 1, nil, false, true // the priority
}

func peelTaskset(args []Word) (int, *Word, bool, bool) {
	i, ok := skipOptions(args, "ac", "", []string{"all-tasks", "cpu-list"}, nil)
	if !ok || i >= len(args) {
		return i, nil, false, false
	}
	return i + 1, nil, false, true // the mask or list
}

// flockPeel reads flock's leading options as its entry lists them, all but -c, which follows
// the lock file: an option spelled otherwise (an abbreviation) leaves the start unknown.
var flockPeel = sync.OnceValue(func() PeelFunc {
	e, ok := knowledge.Facts("flock")
	if !ok {
		panic("cmdline: no knowledge-base entry for flock")
	}
	var spellings []string
	for _, o := range e.Options {
		if !o.Script {
			spellings = append(spellings, o.Spellings...)
		}
	}
	return optionsPeel(e, spellings)
})

// peelFlock: flock [options] FILE CMD..., or FILE -c CMDLINE; flock FD runs nothing, and is
// read as not understood, the stricter.
func peelFlock(args []Word) (int, *Word, bool, bool) {
	i, _, _, ok := flockPeel()(args)
	if !ok || i >= len(args) {
		return i, nil, false, false
	}
	i++ // the lock file or descriptor
	if i+1 < len(args) && args[i].Known && (args[i].Value == "-c" || args[i].Value == "--command") {
		return len(args), &args[i+1], false, true
	}
	return i, nil, false, true
}

func peelChroot(args []Word) (int, *Word, bool, bool) {
	i, ok := skipOptions(args, "", "", []string{"skip-chdir"}, []string{"userspec", "groups"})
	if !ok || i >= len(args) {
		return i, nil, true, false
	}
	return i + 1, nil, true, true
}

// peelSu finds su's -c command; without one su starts a shell and runs nothing given here.
func peelSu(args []Word) (int, *Word, bool, bool) {
	for i, a := range args {
		if !a.Known {
			return i, nil, false, false
		}
		if name, v, attached := strings.Cut(a.Value, "="); commandOption(name) {
			if attached {
				s := a
				s.Value = v
				return len(args), &s, false, true
			}
			if i+1 < len(args) {
				return len(args), &args[i+1], false, true
			}
		}
		if rest, attached, ok := clusteredC(a.Value); ok && (attached || i+1 < len(args)) {
			s := args[min(i+1, len(args)-1)]
			if attached {
				s, s.Value = a, rest
			}
			return len(args), &s, false, true
		}
	}
	return len(args), nil, false, true
}

// commandOption reports whether su, runuser or script reads the word as an option whose value
// is a command line: -c, or --command and su's --session-command by any prefix that getopt
// takes for them (--comm, --sess; --c and --se are unique among their long options).
func commandOption(w string) bool {
	if w == "-c" {
		return true
	}
	long, ok := strings.CutPrefix(w, "--")
	return ok && (long != "" && strings.HasPrefix("command", long) || len(long) >= 2 && strings.HasPrefix("session-command", long))
}

// peelRunuser reads runuser: with -u USER (--user) it runs the command after its options
// (runuser -u nobody -- make); otherwise it is su, whose -c is a command line.
func peelRunuser(args []Word) (int, *Word, bool, bool) {
	user := false
	for _, a := range args {
		if a.Known && (a.Value == "-u" || strings.HasPrefix(a.Value, "--user") || (strings.HasPrefix(a.Value, "-u") && !strings.HasPrefix(a.Value, "--"))) {
			user = true
		}
	}
	if !user {
		return peelSu(args)
	}
	if i, s, _, ok := peelSu(args); ok && s != nil {
		return i, s, false, true
	}
	i, ok := skipOptions(args, "fmpPlh", "ugGswc", []string{"fast", "preserve-environment", "pty", "login", "help"},
		[]string{"user", "group", "supp-group", "shell", "whitelist-environment", "command", "session-command"})
	return i, nil, false, ok
}

func peelScript(args []Word) (int, *Word, bool, bool) {
	return peelSu(args)
}

func peelXargs(args []Word) (int, *Word, bool, bool) {
	i, _, ok := XargsReplace(args)
	return i, nil, false, ok
}
