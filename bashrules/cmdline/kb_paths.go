package cmdline

import "strings"

// The peels of the wrappers whose entries are in knowledge/programs/paths.kb.

func init() {
	registerPeel("ip", peelIP)
}

// ipValueOptions are ip's global options that take the next word as their value, as its
// usage lists them, with the shortest prefix ip reads as each. ip matches an option by any
// prefix of its name, in the order of its own table, and reads --x as -x.
var ipValueOptions = []struct{ name, shortest string }{
	{"-loops", "-l"}, {"-family", "-f"}, {"-rcvbuf", "-rc"}, {"-netns", "-n"},
}

// peelIP finds the command of ip netns exec NAME CMD, ip -all netns exec CMD and ip vrf exec
// NAME CMD. Any other ip call runs nothing. ip reads objects and their commands by prefix as
// well (ip net e), so a word that may be netns or vrf followed by one that may be exec is
// read as the exec form; when the words cannot be placed (an option the peel does not know,
// a word that is not literal, -batch reading commands from a file, exec somewhere else), the
// peel gives up and the command is guessed, which asks.
func peelIP(args []Word) (int, *Word, bool, bool) {
	all := false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			return i, nil, false, false
		}
		v := a.Value
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") {
			break
		}
		if strings.HasPrefix(v, "--") {
			v = v[1:]
		}
		switch {
		case ipPrefix(v, "-batch", "-b"):
			return i, nil, false, false // commands from a file, or standard input
		case ipPrefix(v, "-all", "-a"):
			all = true
		case ipTakesValue(v):
			i++
		}
	}
	if i >= len(args) {
		return len(args), nil, false, true
	}
	object, rest := args[i], args[i+1:]
	execAt := -1
	for j, a := range rest {
		if !a.Known {
			return i, nil, false, false
		}
		if ipPrefix(a.Value, "exec", "e") {
			execAt = j
			break
		}
	}
	if execAt < 0 {
		return len(args), nil, false, true
	}
	netns, vrf := ipPrefix(object.Value, "netns", "n"), ipPrefix(object.Value, "vrf", "v")
	if execAt != 0 || !netns && !vrf {
		return i, nil, false, false // exec where the peel cannot place it
	}
	inner := i + 1 + execAt + 1
	if !all || vrf {
		inner++ // the namespace or VRF's name
	}
	if inner > len(args) {
		return len(args), nil, false, true
	}
	return inner, nil, false, true
}

// ipPrefix reports whether ip reads w as name: a prefix of it at least as long as shortest.
func ipPrefix(w, name, shortest string) bool {
	return len(w) >= len(shortest) && strings.HasPrefix(name, w)
}

func ipTakesValue(v string) bool {
	for _, o := range ipValueOptions {
		if ipPrefix(v, o.name, o.shortest) {
			return true
		}
	}
	return false
}
