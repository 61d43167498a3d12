package bashrules

// The path and read-only code of the programs whose entries are in knowledge/programs/local.kb: what their
// entries cannot state as data (a paths role, the read-only
// judgement of their arguments).

func init() {
	registerReadOnly("hostname", hostnameRO)
	registerReadOnly("set", setRO)
	registerReadOnly("xxd", xxdRO)
	registerPaths("egrep", grepPaths(false))
	registerPaths("fgrep", grepPaths(false))
	registerPaths("md5sum", sumPaths)
	registerPaths("sha1sum", sumPaths)
	registerPaths("sha256sum", sumPaths)
	registerPaths("sha512sum", sumPaths)
	registerPaths("cksum", sumPaths)
	registerPaths("file", filePaths)
	registerPaths("xxd", xxdPaths)
	registerPaths("unzip", unzipPaths)
}

func unzipPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "dxP"})
	var r pathsResult
	if len(ops) > 0 {
		r.add(accRead, ops[0])
	}
	if hasOpt(opts, "-l", "-v", "-t", "-p", "-Z", "-z") {
		return r
	}
	target := dotWord
	if ds := optVals(opts, "-d"); len(ds) > 0 {
		target = ds[0]
	}
	r.add(accWrite, target)
	r.issue("extracting an archive writes files named inside it")
	return r
}

func sumPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "al", long: []string{"algorithm", "length"}})
	var r pathsResult
	if hasOpt(opts, "-c", "--check") {
		r.issue("checking sums reads the files named in the sum file")
	}
	r.add(accRead, dropStdin(ops)...)
	return r
}

func filePaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "efmFP", long: []string{"exclude", "exclude-quiet", "files-from", "magic-file", "separator", "parameter"}})
	var r pathsResult
	if hasOpt(opts, "-f", "--files-from") {
		r.issue("file -f reads files named in another file")
	}
	if hasOpt(opts, "-C", "--compile") {
		r.issue("file -C writes a compiled magic file")
	}
	r.add(accRead, dropStdin(ops)...)
	return r
}

func xxdPaths(args []Word) pathsResult {
	_, ops := parseArgs(args, optSpec{value: "cglosn", long: []string{"cols", "groupsize", "len", "seek", "name"}})
	var r pathsResult
	if len(ops) > 0 {
		r.add(accRead, dropStdin(ops[:1])...)
	}
	if len(ops) > 1 {
		r.add(accWrite, dropStdin(ops[1:2])...)
	}
	return r
}
