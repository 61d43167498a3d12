package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in
// knowledge/programs/paths.kb: what their entries cannot state as data (a paths role, the
// read-only judgement of their arguments).

func init() {
	registerReadOnly("history", historyRO)
	registerReadOnly("ip", ipRO)
	registerReadOnly("ifconfig", ifconfigRO)
	registerPaths("rgrep", grepPaths(true))
	registerPaths("sha224sum", sumPaths)
	registerPaths("sha384sum", sumPaths)
	registerPaths("b2sum", sumPaths)
	registerPaths("sum", sumPaths)
	registerPaths("shasum", sumPaths)
	registerPaths("link", linkPaths)
	registerPaths("pax", paxPaths)
	registerPaths("history", historyPaths)
}

// historyPaths: with -a or -w, history writes the history file, its operand or else
// $HISTFILE, which the analysis cannot name; with -n or -r it reads it. Without them its
// operands are a count or words for the history list.
func historyPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "d"})
	var r pathsResult
	acc := accRead
	switch {
	case hasOpt(opts, "-a", "-w"):
		acc = accWrite
	case !hasOpt(opts, "-n", "-r"):
		return r
	}
	if len(ops) == 0 && acc == accWrite {
		r.issue("history writes the history file $HISTFILE names")
	}
	r.add(acc, ops...)
	return r
}

// linkPaths: link FILE NAME makes a hard link, like ln without options: both are writes.
func linkPaths(args []Word) pathsResult {
	_, ops := parseArgs(args, optSpec{})
	var r pathsResult
	r.add(accWrite, ops...)
	return r
}

// paxPaths: pax -rw copies the files named to the last operand, a directory; with -l it
// hard-links them there instead, which makes each a write to its source (as cp -l). The
// archive -f names is written by pax -w and read otherwise.
func paxPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "bfopsxBGTU"})
	var r pathsResult
	copying := hasOpt(opts, "-r") && hasOpt(opts, "-w")
	archive := accRead
	if hasOpt(opts, "-w") && !hasOpt(opts, "-r") {
		archive = accWrite
	}
	r.add(archive, optVals(opts, "-f")...)
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

// ifconfigRO: ifconfig with arguments other than an interface (or -a) changes it.
func ifconfigRO(args []Word) string {
	if len(args) > 1 || (len(args) == 1 && strings.HasPrefix(args[0].Value, "-") && args[0].Value != "-a") {
		return "ifconfig with arguments other than an interface changes it"
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
