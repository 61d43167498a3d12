package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in knowledge/programs/paths.kb: what their
// entries cannot state as data (a paths role, the read-only
// judgement of their arguments).

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
