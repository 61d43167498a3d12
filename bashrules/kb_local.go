package bashrules

import "strings"

// The path and read-only code of the programs whose entries are in
// knowledge/programs/local.kb: what their entries cannot state as data (a paths role, the
// read-only judgement of their arguments).

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
	registerPaths("split", splitPaths)
}

// splitPaths: split [FILE [PREFIX]] reads FILE and writes PREFIXaa, PREFIXab, … (xaa, … in
// the working folder without a PREFIX); the pieces are checked as a write of PREFIX, in the
// folder they land in.
func splitPaths(args []Word) pathsResult {
	_, ops := parseArgs(args, kbSpec("split"))
	var r pathsResult
	if len(ops) > 0 {
		r.add(accRead, dropStdin(ops[:1])...)
	}
	prefix := Word{Src: "x", Value: "x", Known: true}
	if len(ops) > 1 {
		prefix = ops[1]
	}
	r.add(accWrite, prefix)
	return r
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

func setRO(args []Word) string {
	if len(args) == 0 {
		return "set without arguments prints every variable"
	}
	return ""
}

func hostnameRO(args []Word) string {
	for _, a := range args {
		switch a.Value {
		case "-s", "-f", "-d", "-i", "-I", "-A", "-a", "-y", "--short", "--fqdn", "--long", "--domain", "--ip-address", "--all-ip-addresses", "--all-fqdns", "--alias", "--nis":
		default:
			return "hostname with arguments can set the host name"
		}
	}
	return ""
}

// xxdRO checks xxd's options, which it recognises by their first letter (-ps is -postscript,
// -cols is -c); the output file, its second operand, is a write the path check sees.
func xxdRO(args []Word) string {
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if !args[i].Known || len(v) < 2 || v[0] != '-' {
			continue
		}
		if v == "--" {
			return ""
		}
		switch c := v[1]; {
		case strings.IndexByte("abCEeihpruvd", c) >= 0:
		case strings.IndexByte("cglnosR", c) >= 0:
			if len(v) == 2 || (len(v) > 2 && (v[2] < '0' || v[2] > '9') && v[2] != '+' && v[2] != '-') {
				i++
			}
		default:
			return "xxd option " + v + " is not known to be read-only"
		}
	}
	return ""
}
