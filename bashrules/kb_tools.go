package bashrules

import (
	"net/url"
	"path"
	"strings"
)

// The path and read-only code of the programs whose entries are in
// knowledge/programs/tools.kb: what their entries cannot state as data (a paths role, the
// read-only judgement of their arguments).

func init() {
	registerReadOnly("man", manRO)
	registerReadOnly("awk", awkRO)
	registerReadOnly("pyright", pyrightRO)
	registerPaths("awk", awkPaths)
	registerPaths("gawk", awkPaths)
	registerPaths("mawk", awkPaths)
	registerPaths("nawk", awkPaths)
	registerPaths("curl", curlPaths)
	registerPaths("wget", wgetPaths)
	registerPaths("tar", tarPaths)
	registerPaths("zip", zipPaths)
	registerPaths("scp", copyRemotePaths)
	registerPaths("rsync", copyRemotePaths)
	registerPaths("sftp", sshPaths)
	registerPaths("ssh", sshPaths)
}

var curlSpec = optSpec{value: "dFoTKbcDeEHuUXxAwrmCYyzQtP", long: []string{"data", "data-ascii", "data-binary", "data-raw",
	"data-urlencode", "json", "form", "form-string", "output", "upload-file", "config", "cookie", "cookie-jar", "dump-header",
	"referer", "cert", "key", "cacert", "capath", "header", "user", "proxy-user", "request", "proxy", "user-agent", "write-out",
	"range", "max-time", "connect-timeout", "continue-at", "time-cond", "retry", "limit-rate", "max-filesize", "resolve",
	"interface", "netrc-file", "trace", "trace-ascii", "stderr", "url", "output-dir", "quote", "ciphers", "pinnedpubkey",
	"proto", "proto-redir", "telnet-option", "libcurl", "etag-save", "etag-compare", "hsts", "alt-svc", "proxy-cacert",
	"proxy-cert", "proxy-key", "crlfile", "random-file", "egd-file", "unix-socket", "abstract-unix-socket", "variable", "expand-url", "ftp-port", "preproxy", "proto-default"}}

// curlPaths finds the local files curl reads (uploads, @file data, config, certificates) and
// writes (output, cookie jars, traces).
func curlPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, curlSpec)
	var r pathsResult
	var protoDefault Word
	at := func(w Word, sep string) {
		if !w.Known {
			r.issue("curl data is not literal")
			return
		}
		v := w.Value
		if sep != "" {
			i := strings.Index(v, sep)
			if i < 0 {
				return
			}
			v = v[i+len(sep):]
		} else if !strings.HasPrefix(v, "@") {
			return
		} else {
			v = v[1:]
		}
		if j := strings.IndexByte(v, ';'); j >= 0 && sep != "" {
			v = v[:j]
		}
		if v == "-" || v == "" {
			return
		}
		r.add(accRead, Word{Src: v, Value: v, Known: true, Glob: w.Glob})
	}
	for _, o := range opts {
		switch o.name {
		case "-d", "--data", "--data-ascii", "--data-binary", "--json":
			at(o.val, "")
		case "--data-urlencode":
			if o.val.Known && strings.HasPrefix(o.val.Value, "@") {
				at(o.val, "")
			} else {
				at(o.val, "@")
			}
		case "-F", "--form":
			if o.val.Known && strings.Contains(o.val.Value, "=@") {
				at(o.val, "=@")
			} else {
				at(o.val, "=<")
			}
		case "-T", "--upload-file":
			if !(o.val.Known && (o.val.Value == "-" || o.val.Value == ".")) {
				r.add(accRead, o.val)
			}
		case "-o", "--output", "-c", "--cookie-jar", "-D", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc":
			if !(o.val.Known && o.val.Value == "-") {
				r.add(accWrite, o.val)
			}
		case "--output-dir":
			r.add(accWrite, o.val)
		case "-H", "--header", "--proxy-header":
			if o.val.Known && strings.HasPrefix(o.val.Value, "@") {
				at(o.val, "")
			}
		case "-b", "--cookie":
			if o.val.Known && !strings.Contains(o.val.Value, "=") {
				r.add(accRead, o.val)
			}
		case "-E", "--cert", "--key", "--cacert", "--capath", "--netrc-file", "--etag-compare", "--proxy-cacert", "--proxy-cert", "--proxy-key", "--crlfile", "--random-file", "--unix-socket":
			r.add(accRead, o.val)
		case "-K", "--config":
			r.add(accRead, o.val)
			r.issue("curl --config reads options from a file")
		case "-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name":
			r.issue("curl -O writes a file named by the URL or the server")
		case "--url":
			ops = append(ops, o.val)
		case "--variable", "--expand-url":
			r.issue("curl variables can read files")
		case "-w", "--write-out":
			writeOutFiles(&r, o.val)
		case "--proto-default":
			protoDefault = o.val
		}
	}
	for _, u := range ops {
		if p, ok := fileURL(u); ok {
			r.add(accRead, p)
		} else if u.Known && !strings.Contains(u.Value, "://") && protoDefault.Known && strings.EqualFold(protoDefault.Value, "file") {
			// --proto-default file: a URL without a scheme is a local path.
			r.add(accRead, u)
		}
	}
	if !protoDefault.Known && protoDefault.Src != "" {
		r.issue("curl --proto-default is not literal: its URLs may be local files")
	}
	return r
}

// writeOutFiles adds what a --write-out format reads and writes: @FILE reads the format
// from FILE (which the analysis does not see), and %output{NAME} (curl 8.3) writes the rest
// of the output to NAME, %output{>>NAME} appending.
func writeOutFiles(r *pathsResult, w Word) {
	if !w.Known {
		r.issue("curl --write-out is not literal: it may write a file (%output{...})")
		return
	}
	v := w.Value
	if f, ok := strings.CutPrefix(v, "@"); ok {
		if f != "-" && f != "" {
			r.add(accRead, subWord(w, f))
		}
		r.issue("curl --write-out @" + f + " reads its format from a file, which may write one (%output{...})")
		return
	}
	for {
		i := strings.Index(v, "%output{")
		if i < 0 {
			return
		}
		v = v[i+len("%output{"):]
		j := strings.IndexByte(v, '}')
		if j < 0 {
			return
		}
		name := strings.TrimPrefix(v[:j], ">>")
		if name != "" {
			r.add(accWrite, subWord(w, name))
		}
		v = v[j+1:]
	}
}

// fileURL returns the local path of a file:// URL.
func fileURL(w Word) (Word, bool) {
	if !w.Known || !strings.HasPrefix(strings.ToLower(w.Value), "file:") {
		return Word{}, false
	}
	u, err := url.Parse(w.Value)
	if err != nil || u.Path == "" {
		return Word{Src: w.Src, Why: "file URL that does not parse"}, true
	}
	return Word{Src: u.Path, Value: u.Path, Known: true}, true
}

var wgetSpec = optSpec{value: "OoaiPeUTtwQlABDRXIY", long: []string{"output-document", "output-file", "append-output", "input-file",
	"directory-prefix", "execute", "user-agent", "timeout", "tries", "wait", "quota", "level", "accept", "reject", "domains",
	"exclude-directories", "include-directories", "base", "post-file", "body-file", "post-data", "body-data", "load-cookies",
	"save-cookies", "config", "header", "user", "password", "method", "ca-certificate", "certificate", "private-key", "ca-directory",
	"default-page", "referer", "rejected-log", "warc-file", "a"}}

func wgetPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, wgetSpec)
	var r pathsResult
	r.add(accRead, optVals(opts, "-i", "--input-file", "--post-file", "--body-file", "--load-cookies", "--ca-certificate", "--certificate", "--private-key", "--ca-directory")...)
	r.add(accWrite, optVals(opts, "-o", "--output-file", "-a", "--append-output", "--save-cookies", "--rejected-log", "--warc-file")...)
	if hasOpt(opts, "-e", "--execute", "--config") {
		r.issue("wget --execute and --config can change where it writes")
	}
	out := optVals(opts, "-O", "--output-document")
	if len(out) > 0 {
		for _, o := range out {
			if !(o.Known && o.Value == "-") {
				r.add(accWrite, o)
			}
		}
		return r
	}
	dir := dotWord
	if ds := optVals(opts, "-P", "--directory-prefix"); len(ds) > 0 {
		dir = ds[len(ds)-1]
	}
	if hasOpt(opts, "-r", "--recursive", "-m", "--mirror", "-x", "--force-directories", "--content-disposition") {
		r.add(accWrite, dir)
		r.issue("wget writes files named by the server")
		return r
	}
	for _, u := range ops {
		name := "index.html"
		if u.Known {
			if pu, err := url.Parse(u.Value); err == nil && pu.Path != "" && !strings.HasSuffix(pu.Path, "/") {
				name = path.Base(pu.Path)
			}
		}
		r.uses = append(r.uses, pathUse{w: dir, acc: accWrite, base: name})
	}
	return r
}

// tarPaths handles tar's bundled first argument (tar czf out.tgz dir) as well as dashed
// options.
func tarPaths(args []Word) pathsResult {
	var r pathsResult
	if len(args) > 0 && args[0].Known && !strings.HasPrefix(args[0].Value, "-") && args[0].Value != "" {
		first := args[0]
		first.Value = "-" + first.Value
		args = append([]Word{first}, args[1:]...)
	}
	opts, ops := parseArgs(args, optSpec{value: "fCTXbKNLVgH", long: []string{"file", "directory", "files-from", "exclude-from",
		"exclude", "to-command", "use-compress-program", "checkpoint-action", "transform", "owner", "group", "mode", "format",
		"newer", "after-date", "label", "blocking-factor", "info-script", "new-volume-script", "rsh-command"}})
	create := hasOpt(opts, "-c", "--create", "-r", "--append", "-u", "--update")
	extract := hasOpt(opts, "-x", "--extract", "--get")
	for _, name := range []string{"--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script", "-F", "--new-volume-script", "--rsh-command"} {
		if hasOpt(opts, name) {
			r.issue("tar " + name + " runs another program")
		}
	}
	dirs := optVals(opts, "-C", "--directory")
	var dir *Word
	if len(dirs) > 0 {
		dir = &dirs[0]
	}
	archives := optVals(opts, "-f", "--file")
	r.add(accRead, optVals(opts, "-T", "--files-from", "-X", "--exclude-from")...)
	for _, a := range archives {
		if a.Known && a.Value == "-" {
			continue
		}
		if create {
			r.add(accWrite, a)
		} else {
			r.add(accRead, a)
		}
	}
	switch {
	case create:
		for _, o := range ops {
			r.uses = append(r.uses, pathUse{w: o, acc: accReadTree, dir: dir})
		}
	case extract:
		target := dotWord
		if dir != nil {
			target = *dir
		}
		r.add(accWrite, target)
		r.issue("extracting an archive writes files named inside it")
	}
	return r
}

func zipPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "bntTxiP", long: []string{"temp-path", "suffixes", "unzip-command", "exclude", "include", "password"}})
	var r pathsResult
	if hasOpt(opts, "-TT", "--unzip-command") {
		r.issue("zip -TT runs a program")
	}
	if len(ops) == 0 {
		return r
	}
	r.add(accWrite, ops[0])
	acc := accRead
	if hasOpt(opts, "-r", "--recurse-paths") {
		acc = accReadTree
	}
	r.add(acc, dropStdin(ops[1:])...)
	return r
}

// sshCommandOption reports ssh -o options that run a local command.
func sshCommandOption(v string) bool {
	v = strings.ToLower(v)
	for _, p := range []string{"proxycommand", "localcommand", "permitlocalcommand", "match", "knownhostscommand"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

func sshOptions(opts []opt, r *pathsResult) {
	for _, o := range opts {
		switch o.name {
		case "-o":
			if !o.val.Known || sshCommandOption(o.val.Value) {
				r.issue("ssh option runs a local command")
			}
		case "-F":
			r.add(accRead, o.val)
			r.issue("ssh -F reads options from a file")
		case "-i":
			r.add(accRead, o.val)
		case "-S":
			r.issue("-S runs another program")
		}
	}
}

func sshPaths(args []Word) pathsResult {
	opts, _ := parseArgs(args, optSpec{value: "BbcDEeFIiJLlmOoPpQRSWw", posix: true})
	var r pathsResult
	sshOptions(opts, &r)
	return r
}

func copyRemotePaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "cFiJloPSDBe", long: []string{"rsh", "rsync-path", "exclude", "exclude-from", "include", "include-from", "files-from", "filter", "password-file", "log-file", "temp-dir", "partial-dir", "backup-dir", "compare-dest", "copy-dest", "link-dest", "chmod", "chown", "timeout", "bwlimit", "port", "out-format"}})
	var r pathsResult
	sshOptions(opts, &r)
	if hasOpt(opts, "--rsh", "-e") {
		r.issue("the remote shell option runs a local command")
	}
	r.add(accRead, optVals(opts, "--exclude-from", "--include-from", "--files-from", "--password-file")...)
	var local []Word
	lastLocal := false
	for i, o := range ops {
		if o.Known && isRemoteSpec(o.Value) {
			continue
		}
		local = append(local, o)
		lastLocal = i == len(ops)-1
	}
	acc := accReadTree
	var dest *Word
	if lastLocal && len(ops) >= 2 {
		dest = &local[len(local)-1]
		r.add(accWrite, *dest)
		local = local[:len(local)-1]
	}
	r.add(acc, local...)
	// --link-dest makes the copies hard links to DIR's files (DIR relative to the
	// destination): a later write to a copy writes them, so making the links is a write to
	// DIR, as cp -l's is to its sources (issue 39).
	for _, d := range optVals(opts, "--link-dest") {
		u := pathUse{w: d, acc: accWrite}
		if dest != nil {
			u.dir = dest
		}
		r.uses = append(r.uses, u)
		r.issue("rsync --link-dest " + d.Src + " hard-links the copies to the files there, which a later write to a copy changes")
	}
	return r
}

// isRemoteSpec reports host:path arguments of scp and rsync (a colon before any slash).
func isRemoteSpec(v string) bool {
	i := strings.IndexByte(v, ':')
	return i > 0 && !strings.Contains(v[:i], "/")
}

func awkPaths(args []Word) pathsResult {
	opts, ops := parseArgs(args, optSpec{value: "fvFiE", long: []string{"file", "assign", "field-separator", "include", "exec", "load"}})
	var r pathsResult
	progs := optVals(opts, "-f", "--file", "-i", "--include", "-E", "--exec")
	r.add(accRead, progs...)
	if len(progs) == 0 && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, o := range ops {
		if o.Known && envAssignRE().MatchString(o.Value) {
			continue // var=value sets a variable
		}
		if o.Known && o.Value == "-" {
			continue
		}
		r.add(accRead, o)
	}
	return r
}

func manRO(args []Word) string {
	for _, a := range args {
		v := a.Value
		if strings.ContainsRune(v, '/') && !strings.HasPrefix(v, "-") {
			// A page given by its path is formatted from that file, whose requests (.so,
			// the preprocessors its first line names) read other files.
			return "man formats the page file " + v + ", whose requests can read other files"
		}
		if strings.HasPrefix(v, "-") && !contains([]string{"-a", "-f", "-k", "-w", "-W", "--all", "--whatis", "--apropos", "--where", "--path"}, v) {
			return "man option " + v + " is not known to be read-only"
		}
	}
	return ""
}

func pyrightRO(args []Word) string {
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case !strings.HasPrefix(v, "-"):
		case contains([]string{"--version", "--outputjson", "--verbose", "--stats", "--warnings", "--dependencies", "--skipunannotated"}, v):
		case contains([]string{"-p", "--project", "--pythonversion", "--pythonplatform", "--level", "--pythonpath"}, v):
			i++
		default:
			return "pyright option " + v + " is not known to be read-only"
		}
	}
	return ""
}

// awkRO allows an awk program that only reads its input.
func awkRO(args []Word) string {
	if why := execOption("awk", args); why != "" {
		return why
	}
	return ""
}
