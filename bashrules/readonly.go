package bashrules

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// roFunc reports why a command with these (known) arguments is not read-only, or "" when it
// only reads. Path arguments are checked separately: a read-only command is allowed only when
// every path it touches passes the Read check, and never when it writes any.
type roFunc func(args []Word) string

func anyArgs([]Word) string { return "" }

// noResponseFile refuses a GNU binutils @FILE operand: the arguments it holds are unseen.
func noResponseFile(args []Word) string {
	for _, a := range args {
		if strings.HasPrefix(a.Value, "@") && len(a.Value) > 1 {
			return a.Value + " reads more arguments from a response file"
		}
	}
	return ""
}

func noArgs(args []Word) string {
	if len(args) > 0 {
		return "takes no arguments when read-only"
	}
	return ""
}

// forbid returns a roFunc that refuses the given options (by name, or by prefix when the name
// ends in "=").
func forbid(names ...string) roFunc {
	return func(args []Word) string {
		for _, a := range args {
			v := a.Value
			if v == "--" {
				return ""
			}
			if !strings.HasPrefix(v, "-") {
				continue
			}
			for _, n := range names {
				if v == n || (strings.HasSuffix(n, "=") && strings.HasPrefix(v, n)) || (strings.HasPrefix(n, "--") && (strings.HasPrefix(v, n+"=") || longPrefix(v, n))) {
					return "option " + v + " is not read-only"
				}
				// -n inside a cluster of short options, such as -ri.
				if len(n) == 2 && n[0] == '-' && !strings.HasPrefix(v, "--") && strings.IndexByte(v[1:], n[1]) >= 0 && clusterOnly(v) {
					return "option " + n + " is not read-only"
				}
			}
		}
		return ""
	}
}

// clusterOnly reports whether a short-option word is made only of letters (so a letter in it
// is an option, not an attached value such as -n5).
func clusterOnly(v string) bool {
	for i := 1; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
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

// commandRO: command -v and -V only say what a name runs; otherwise command runs it.
func commandRO(args []Word) string {
	if len(args) > 0 && (args[0].Value == "-v" || args[0].Value == "-V") {
		return ""
	}
	return "command runs another command"
}

func setRO(args []Word) string {
	if len(args) == 0 {
		return "set without arguments prints every variable"
	}
	return ""
}

// readOnlyFor returns the read-only check of a command name, python's --version included.
func readOnlyFor(name string) (roFunc, bool) {
	if f, ok := readOnlyCommands()[name]; ok {
		return f, true
	}
	if versionedPython().MatchString(name) {
		return versionOnly("--version", "-V"), true
	}
	return nil, false
}

func versionOnly(flags ...string) roFunc {
	return func(args []Word) string {
		if len(args) == 1 && contains(flags, args[0].Value) {
			return ""
		}
		return "only " + strings.Join(flags, " or ") + " is read-only"
	}
}

// testRO refuses test arguments that bash evaluates as array subscripts (test -v 'a[$(cmd)]').
func testRO(args []Word) string {
	for _, a := range args {
		if strings.Contains(a.Value, "$(") || strings.ContainsRune(a.Value, '`') {
			return "an argument of test holds a command substitution that -v would run"
		}
	}
	return ""
}

var jqEnvRE = lazyRE(`\$ENV|\benv\b|\binput_filename\b|\$__prog|\bget_search_list\b`)

// jqModuleRE finds a jq filter's module directives: import and include read .jq and .json
// files from the library path (~/.jq, next to jq, -L folders), which the path check never sees.
var jqModuleRE = lazyRE(`\b(import|include|modulemeta)\b`)

func jqRO(args []Word) string {
	for _, a := range args {
		switch v := a.Value; {
		case v == "-f" || v == "--from-file" || v == "--rawfile" || v == "--slurpfile" || v == "-L" || strings.HasPrefix(v, "--library-path") || strings.HasPrefix(v, "-L"):
			return "jq option " + v + " reads other files"
		case jqEnvRE().MatchString(v):
			return "jq filter reads the environment"
		case jqModuleRE().MatchString(v):
			return "jq filter imports modules, which it reads from its library path"
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

func dateRO(args []Word) string {
	for _, a := range args {
		v := a.Value
		switch {
		case v == "-s" || strings.HasPrefix(v, "--set") || longPrefix(v, "--set"):
			return "date --set changes the clock"
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && !strings.HasPrefix(v, "-I") && strings.ContainsRune(v, 's') && clusterOnly(v):
			return "date -s changes the clock"
		}
	}
	_, ops := parseArgs(args, kbSpec("date"))
	for _, o := range ops {
		if !strings.HasPrefix(o.Value, "+") {
			return "date with an operand sets the clock"
		}
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

func dockerRO(args []Word) string {
	if len(args) == 0 {
		return "docker needs a subcommand"
	}
	switch args[0].Value {
	case "ps", "images":
		return ""
	case "image", "container":
		if len(args) > 1 && (args[1].Value == "ls" || args[1].Value == "list") {
			return ""
		}
	}
	return "only docker ps and docker images are read-only"
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

// gitGlobal splits git's global options from the subcommand.
func gitGlobal(args []Word) (global []Word, sub string, rest []Word, why string) {
	i := 0
	for i < len(args) {
		v := args[i].Value
		switch {
		case v == "-C":
			i += 2
			continue
		case contains([]string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects",
			"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-advice", "--bare"}, v):
			i++
			continue
		case v == "-c" || v == "--config-env" || strings.HasPrefix(v, "--config-env=") || strings.HasPrefix(v, "-c"):
			why = "git -c sets configuration that can run programs"
			i += 2
			continue
		case strings.HasPrefix(v, "-"):
			if why == "" {
				why = "git option " + v + " can change what git runs"
			}
			if !strings.Contains(v, "=") && (v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--exec-path") {
				i++
			}
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return args, "", nil, "git needs a subcommand"
	}
	return args[:i], args[i].Value, args[i+1:], why
}

// gitForbidden are options that make a reading git command write, page or run programs.
var gitForbidden = []string{"--output", "--ext-diff", "--textconv", "-O", "--open-files-in-pager", "--upload-pack", "-u",
	"--exec", "--receive-pack", "--paginate", "-p"}

var gitReadSubcommands = map[string]bool{"status": true, "log": true, "show": true, "diff": true, "shortlog": true,
	"blame": true, "annotate": true, "ls-files": true, "merge-base": true, "rev-parse": true, "rev-list": true, "describe": true,
	"cat-file": true, "for-each-ref": true, "grep": true, "ls-tree": true, "name-rev": true, "count-objects": true,
	"version": true, "whatchanged": true, "check-ignore": true, "show-ref": true, "ls-remote": true, "cherry": true,
	"diff-tree": true, "diff-files": true, "diff-index": true, "show-branch": true, "verify-commit": true, "verify-tag": true}

func gitRO(args []Word) string {
	if len(args) == 1 && (args[0].Value == "--version" || args[0].Value == "version") {
		return ""
	}
	_, sub, rest, why := gitGlobal(args)
	if why != "" {
		return why
	}
	forbidden := func() string {
		for _, a := range rest {
			v := a.Value
			if v == "--" {
				break
			}
			name, _, _ := strings.Cut(v, "=")
			// -p is patch output for log/show/diff; it only pages in git's global options.
			if (name == "-p" || name == "-u") && sub != "ls-remote" {
				continue
			}
			if contains(gitForbidden, name) {
				return "git " + sub + " " + name + " is not read-only"
			}
		}
		return ""
	}
	switch {
	case gitReadSubcommands[sub]:
		return forbidden()
	case sub == "reflog":
		if len(rest) == 0 || rest[0].Value == "show" || strings.HasPrefix(rest[0].Value, "-") {
			return forbidden()
		}
	case sub == "stash":
		if len(rest) > 0 && (rest[0].Value == "list" || rest[0].Value == "show") {
			return forbidden()
		}
	case sub == "worktree":
		if len(rest) > 0 && rest[0].Value == "list" {
			return ""
		}
	case sub == "remote":
		if len(rest) == 0 || rest[0].Value == "-v" || rest[0].Value == "--verbose" || rest[0].Value == "show" || rest[0].Value == "get-url" {
			return ""
		}
	case sub == "config":
		return gitConfigRO(rest)
	case sub == "tag", sub == "branch":
		return gitListRO(sub, rest)
	}
	return "git " + sub + " is not read-only"
}

func gitConfigRO(rest []Word) string {
	if len(rest) > 0 && (rest[0].Value == "get" || rest[0].Value == "list") {
		return ""
	}
	reading := false
	for _, a := range rest {
		v, _, _ := strings.Cut(a.Value, "=")
		switch v {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color", "--get-colorbool":
			reading = true
		case "--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e", "--rename-section", "--remove-section":
			return "git config " + v + " changes the configuration"
		}
	}
	if !reading {
		return "git config without --get or --list changes the configuration"
	}
	return ""
}

// gitListRO allows git tag and git branch only when they list.
func gitListRO(sub string, rest []Word) string {
	listing := false
	var operands int
	for _, a := range rest {
		v, _, _ := strings.Cut(a.Value, "=")
		switch {
		case v == "-l" || v == "--list" || v == "--show-current":
			listing = true
		case contains([]string{"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--contains", "--no-contains",
			"--merged", "--no-merged", "--sort", "--format", "--points-at", "--column", "--no-column", "-i", "--ignore-case",
			"--color", "--no-color", "--abbrev", "--no-abbrev", "--omit-empty"}, v) || strings.HasPrefix(v, "-n"):
		case strings.HasPrefix(v, "-"):
			return "git " + sub + " " + v + " is not read-only"
		default:
			operands++
		}
	}
	if operands > 0 && !listing {
		return "git " + sub + " with a name creates it"
	}
	return ""
}

var ghReadVerbs = map[string][]string{
	"pr":       {"list", "view", "diff", "checks", "status"},
	"issue":    {"list", "view", "status"},
	"repo":     {"view", "list"},
	"run":      {"list", "view"},
	"release":  {"list", "view"},
	"workflow": {"list", "view"},
	"label":    {"list"},
	"search":   {"repos", "issues", "prs", "commits", "code"},
}

func ghRO(args []Word) string {
	if len(args) < 2 {
		return "gh needs a command"
	}
	verbs, ok := ghReadVerbs[args[0].Value]
	if !ok || !contains(verbs, args[1].Value) {
		return "gh " + args[0].Value + " " + args[1].Value + " is not read-only"
	}
	return ""
}

// IsReadOnly reports whether a command only reads: every part is in the read-only set with
// options that keep it so, nothing is written through a redirection, and the directory is not
// changed. It is used to decide whether calls may run concurrently, and answers false whenever
// it is unsure. It does not check paths against rules; [Check] does.
func IsReadOnly(pc *permission.Context, command string) bool {
	if pc == nil {
		return false
	}
	if spoofing(command) != "" || len(command) > MaxCommandLength {
		return false
	}
	a, err := Analyze(command)
	if err != nil || a.Truncated || len(a.Issues) > 0 || len(a.Commands) > MaxSubcommands {
		return false
	}
	for _, rd := range a.Redirects {
		switch rd.Kind {
		case RedirOut, RedirInOut:
			if !exemptOutput(rd.Target) {
				return false
			}
		case RedirIn:
			if !rd.Target.Known {
				return false
			}
		}
	}
	kids := map[*Command][]*Command{}
	for _, c := range a.Commands {
		if c.Parent != nil {
			kids[c.Parent] = append(kids[c.Parent], c)
		}
	}
	for _, c := range a.Commands {
		if c.Parent == nil && !readOnlyCommand(pc, c, kids) {
			return false
		}
	}
	return true
}

func readOnlyCommand(pc *permission.Context, c *Command, kids map[*Command][]*Command) bool {
	switch c.Kind {
	case KindArith, KindTest, KindFuncCall:
		return true
	case KindAssign, KindDecl:
		return unsafeAssignment(c) == ""
	}
	if c.Transparent {
		n := 0
		for _, k := range kids[c] {
			if k.Speculative {
				continue
			}
			if !readOnlyCommand(pc, k, kids) {
				return false
			}
			n++
		}
		return n > 0 && len(c.Issues) == 0
	}
	if !fullyKnown(c, c.Issues) || !safeAssigns(c.Assigns) || c.OtherDir {
		return false
	}
	name, trusted := commandName(c.Argv[0])
	if !trusted {
		return false
	}
	ro, ok := readOnlyFor(name)
	if !ok || ro(c.Argv[1:]) != "" || subscriptIssue(name, c) != "" || execOption(name, c.Argv[1:]) != "" {
		return false
	}
	if spec, ok := pathFuncOf(name); ok {
		pr := spec(c.Argv[1:])
		if len(pr.issues) > 0 {
			return false
		}
		for _, u := range pr.uses {
			if isWrite(u.acc) || (u.acc == accWrite) {
				return false
			}
		}
	}
	if name == "git" && (gitInBareRepo(context.Background(), pc.Cwd(), c.Argv[1:]) || gitElsewhere(context.Background(), pc.Cwd(), pc.OriginalCwd(), c.Argv[1:]) != "") {
		return false
	}
	return true
}

// gitInBareRepo reports whether git would run in a directory laid out as a bare repository
// (HEAD, objects/ and refs/ without .git): a repository planted in the project whose
// configuration (core.fsmonitor, core.pager) can run programs.
func gitInBareRepo(ctx context.Context, cwd string, args []Word) bool {
	dir := cwd
	for i := 0; i+1 < len(args); i++ {
		if args[i].Value == "-C" {
			d := args[i+1].Value
			if !filepath.IsAbs(d) {
				d = filepath.Join(dir, d)
			}
			dir = d
			i++
		}
	}
	if _, err := permission.Lstat(ctx, filepath.Join(dir, ".git")); err == nil {
		return false
	}
	head, err1 := os.Stat(filepath.Join(dir, "HEAD"))
	objs, err2 := os.Stat(filepath.Join(dir, "objects"))
	refs, err3 := os.Stat(filepath.Join(dir, "refs"))
	return err1 == nil && err2 == nil && err3 == nil && !head.IsDir() && objs.IsDir() && refs.IsDir()
}

// gitConfigWrites finds the configuration file a git config command writes: ~/.gitconfig for
// --global, /etc/gitconfig for --system, the --file, or .git/config when the key is one that
// runs programs (core.hooksPath, core.pager, alias.*, ...). Reading commands write nothing.
func gitConfigWrites(rest []Word, dir *Word) []pathUse {
	var file *Word
	scope := "local"
	var ops []Word
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.Known {
			ops = append(ops, a)
			continue
		}
		v, val, hasVal := strings.Cut(a.Value, "=")
		switch {
		case v == "--get" || v == "--get-all" || v == "--get-regexp" || v == "--get-urlmatch" || v == "--list" || v == "-l" ||
			v == "--get-color" || v == "--get-colorbool" || (len(ops) == 0 && (v == "get" || v == "list")):
			return nil
		case v == "--global":
			scope = "global"
		case v == "--system":
			scope = "system"
		case v == "-f" || longPrefix(v, "--file") || v == "--file":
			if hasVal {
				w := subWord(a, val)
				file = &w
			} else if i+1 < len(rest) {
				w := rest[i+1]
				file = &w
				i++
			}
		case v == "--blob" || v == "--type" || v == "--default" || v == "--comment":
			if !hasVal {
				i++
			}
		case strings.HasPrefix(v, "-"):
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	if ops[0].Known && (ops[0].Value == "set" || ops[0].Value == "unset") {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		return nil
	}
	var target Word
	switch {
	case file != nil:
		target = *file
	case scope == "global":
		target = Word{Src: "~/.gitconfig", Value: "~/.gitconfig", Known: true, Tilde: TildeHome}
	case scope == "system":
		target = Word{Src: "/etc/gitconfig", Value: "/etc/gitconfig", Known: true}
	default:
		key := strings.ToLower(ops[0].Value)
		runs := !ops[0].Known || key == "core.hookspath" || strings.HasPrefix(key, "include") || strings.HasSuffix(key, ".cmd") ||
			strings.HasSuffix(key, ".command") || strings.HasSuffix(key, ".textconv")
		for _, p := range gitCommandKeys {
			if key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(key, p)) {
				runs = true
			}
		}
		if !runs {
			return nil
		}
		target = Word{Src: ".git/config", Value: ".git/config", Known: true}
	}
	return []pathUse{{w: target, acc: accWrite, dir: dir}}
}
