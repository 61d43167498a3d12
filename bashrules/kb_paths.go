package bashrules

// The path code of the programs whose entries are in knowledge/programs/paths.kb: what their
// entries cannot state as data (a paths role).

func init() {
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
