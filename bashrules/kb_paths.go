package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in
// knowledge/programs/paths.kb: what their entries cannot state as data (a paths role, the
// read-only judgement of their arguments).

func init() {
	registerReadOnly("history", historyRO)
	registerReadOnly("ip", ipRO)
	registerReadOnly("ifconfig", ifconfigRO)
	registerReadOnly("info", infoRO)
	registerReadOnly("ss", ssRO)
	// jobs -x runs a command with job specifications replaced by process groups.
	registerReadOnly("jobs", forbid("-x"))
	registerPaths("rgrep", grepPaths(true))
	registerPaths("sha224sum", sumPaths)
	registerPaths("sha384sum", sumPaths)
	registerPaths("b2sum", sumPaths)
	registerPaths("sum", sumPaths)
	registerPaths("shasum", sumPaths)
	registerPaths("link", linkPaths)
	registerPaths("pax", paxPaths)
}

// linkPaths: link FILE NAME makes a hard link, like ln without options: both are writes.
func linkPaths(args []Word) pathsResult {
	_, ops := parseArgs(args, optSpec{})
	var r pathsResult
	r.add(accWrite, ops...)
	return r
}

// paxPaths: pax -rw copies the files named to the last operand, a directory; with -l it
// hard-links them there instead, which makes each a write to its source (as cp -l).
func paxPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "bfopsxBGTU"})
	var r pathsResult
	copying := hasOpt(opts, "-r") && hasOpt(opts, "-w")
	if !copying || len(ops) < 2 {
		r.add(accRead, ops...)
		return r
	}
	src := accReadTree
	if hasOpt(opts, "-l") {
		src = accWrite
	}
	r.add(src, ops[:len(ops)-1]...)
	r.add(accWrite, ops[len(ops)-1])
	return r
}

// ssRO refuses ss -K, which kills the sockets it lists, and -D, which dumps them to a file.
// The entry lists no options, so a K or D anywhere in a cluster of short options counts (the
// value letters of -A, -f, -F and -N are lower case in every value ss takes there but a file).
func ssRO(args []Word) string {
	for _, a := range args {
		v := a.Value
		switch {
		case v == "--":
			return ""
		case strings.HasPrefix(v, "--"):
			name, _, _ := strings.Cut(v, "=")
			if longPrefix(name, "--kill") || longPrefix(name, "--diag") || name == "--kill" || name == "--diag" {
				return "ss " + name + " kills sockets or writes a file"
			}
		case strings.HasPrefix(v, "-") && strings.ContainsAny(v, "KD"):
			return "ss " + v + " kills sockets or writes a file"
		}
	}
	return ""
}

// ifconfigRO: ifconfig with arguments other than an interface (or -a) changes it.
func ifconfigRO(args []Word) string {
	if len(args) > 1 || (len(args) == 1 && strings.HasPrefix(args[0].Value, "-") && args[0].Value != "-a") {
		return "ifconfig with arguments other than an interface changes it"
	}
	return ""
}

func infoRO(args []Word) string {
	for _, a := range args {
		if strings.HasPrefix(a.Value, "-") {
			return "info options are not read-only"
		}
	}
	return ""
}

func historyRO(args []Word) string {
	if len(args) == 0 || (len(args) == 1 && numericRE().MatchString(args[0].Value)) {
		return ""
	}
	return "history with options changes the history"
}

func ipRO(args []Word) string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].Value, "-") {
		switch args[i].Value {
		case "-br", "-brief", "-c", "-color", "-4", "-6", "-j", "-json", "-p", "-pretty", "-s", "-stats", "-d", "-details", "-o", "-oneline":
			i++
		default:
			return "ip option " + args[i].Value + " is not known to be read-only"
		}
	}
	if i >= len(args) {
		return "ip needs an object"
	}
	switch args[i].Value {
	case "addr", "address", "a", "link", "l", "route", "r", "neigh", "n":
	default:
		return "only ip addr, link, route and neigh are read-only"
	}
	rest := args[i+1:]
	if len(rest) > 0 && !contains([]string{"show", "list", "ls", "dev"}, rest[0].Value) {
		return "ip " + args[i].Value + " " + rest[0].Value + " is not read-only"
	}
	return ""
}
