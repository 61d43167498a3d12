package bashrules

import (
	"context"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/hostform"
	"github.com/reinsdev/reins/permission"
)

// The taint check's view of a command line (permission.Taint): which files it reads, so that a
// read of a secret taints the session, and where it can send data, so that a tainted session
// asks before it does. Both lean to the safe side: a read the analysis cannot rule out of a
// tree counts, and a program this file does not know as local sends somewhere unknown.

// Reads returns the files the command line reads as the analysis finds them: the paths of
// known commands' read arguments, input redirections, the files of words an unknown program
// is given, and, for a recursive read (grep -r, cp -r), the secret files below the directory
// (a directory too large to look through stands for itself, as if it were a secret). Paths
// are absolute. What the analysis cannot see (a script's own opens, a path in a variable) is
// not found: docs/security.md lists it.
func Reads(ctx context.Context, pc *permission.Context, command string) []string {
	k := newChecker(ctx, pc, command)
	k.rec.effects = map[*Command][]Effect{}
	k.run()
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		// A file that is not there showed the model nothing.
		if _, err := os.Lstat(p); err != nil {
			return
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, effs := range k.rec.effects {
		for _, e := range effs {
			switch e.Kind {
			case accRead.String(), accReadIfExists.String(), "argument":
				add(e.Target)
			case accReadTree.String():
				for _, p := range secretsBelow(ctx, pc, e.Target) {
					add(p)
				}
			}
		}
	}
	return out
}

// secretsBudget is how many entries below a directory read recursively are looked at for
// secret files before the directory itself is taken for one.
const secretsBudget = 20000

// secretsBelow returns the secret files below dir, or dir itself when it holds too many
// entries to look through.
func secretsBelow(ctx context.Context, pc *permission.Context, dir string) []string {
	if !isDir(dir) {
		return []string{dir}
	}
	var out []string
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		if n++; n > secretsBudget {
			out = []string{dir}
			return filepath.SkipAll
		}
		if _, ok := pc.SecretFile(ctx, p); ok {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// Egress says where a command line can send data off the machine: the hosts of curl's and
// wget's URLs, and why the rest cannot be named — a program whose knowledge-base entry does
// not say "role local", a network program whose destination its options or configuration can
// change, a name only known at run time, a line the analysis cannot read whole. A line of local programs sends nothing.
func Egress(pc *permission.Context, command string) permission.Egress {
	if why := spoofing(command); why != "" {
		return permission.Egress{Unseen: why}
	}
	if len(command) > MaxCommandLength {
		return permission.Egress{Unseen: "the command is too long to analyse"}
	}
	a, err := Analyze(command)
	switch {
	case err != nil:
		return permission.Egress{Unseen: "the command cannot be parsed"}
	case a.Truncated:
		return permission.Egress{Unseen: "the command has too many parts to analyse"}
	case len(a.Issues) > 0:
		return permission.Egress{Unseen: a.Issues[0]}
	}
	for _, r := range a.Redirects {
		if why := redirectEgress(r); why != "" {
			return permission.Egress{Unseen: why}
		}
	}
	var eg permission.Egress
	for _, c := range a.Commands {
		if c.Speculative {
			// A guess from an interpreter's inline code: the interpreter itself sends
			// somewhere unknown.
			continue
		}
		hosts, why := commandEgress(pc, a, c)
		if why != "" {
			return permission.Egress{Unseen: why}
		}
		for _, h := range hosts {
			if !contains(eg.Hosts, h) {
				eg.Hosts = append(eg.Hosts, h)
			}
		}
	}
	return eg
}

// redirectEgress says why a redirection can open a connection: bash opens /dev/tcp/HOST/PORT
// and /dev/udp/... itself, and a target only known at run time may be one.
func redirectEgress(r *Redirect) string {
	switch r.Kind {
	case RedirDup, RedirHeredoc, RedirHereString:
		return ""
	}
	t := r.Target
	switch {
	case !t.Known:
		return "a redirection's target (" + t.Src + ") is only known when it runs"
	case strings.HasPrefix(path.Clean(t.Value), "/dev/tcp/"), strings.HasPrefix(path.Clean(t.Value), "/dev/udp/"):
		return "the redirection to " + t.Value + " opens a connection"
	}
	return ""
}

// commandEgress is one simple command's part of Egress.
func commandEgress(pc *permission.Context, a *Analysis, c *Command) ([]string, string) {
	for _, as := range c.Assigns {
		if strings.Contains(strings.ToLower(as.Name), "proxy") {
			return nil, "it sets " + as.Name + ", which sends connections elsewhere"
		}
	}
	if len(c.Issues) > 0 {
		return nil, c.Issues[0]
	}
	if c.Kind != KindCall {
		return nil, ""
	}
	if len(c.Argv) == 0 {
		return nil, "its words cannot be expanded"
	}
	name, _ := commandName(c.Argv[0])
	if name == "" || c.Argv[0].Placeholder {
		return nil, "a command name (" + c.Argv[0].Src + ") is only known when it runs"
	}
	args := c.Argv[1:]
	if why := execOption(name, args); why != "" {
		return nil, why
	}
	switch {
	case name == "tar" && remoteArchive(args):
		return nil, "tar's archive is on another host"
	case name == "curl":
		return urlEgress(pc, c, args, curlSpec, curlRedirecting, ".curlrc")
	case name == "wget":
		return urlEgress(pc, c, args, wgetSpec, wgetRedirecting, ".wgetrc")
	case name == "git":
		_, sub, _, _ := gitGlobal(args)
		if localSub("git", sub) {
			return nil, ""
		}
		return nil, "git " + sub + " may reach a remote"
	case name == "go":
		if len(args) > 0 && args[0].Known && localSub("go", args[0].Value) {
			return nil, ""
		}
		return nil, "go may download modules or run code"
	case roles().local[name] || isShell(name):
		// A wrapper or shell is local when the analysis sees what it runs; those commands
		// are judged on their own.
		if _, wrapper := wrapperOf(name); (wrapper || name == "eval" || isShell(name)) && !hasChild(a, c) {
			return nil, "what " + name + " runs is not known"
		}
		return nil, ""
	}
	return nil, name + " is not known to keep its data on this machine"
}

// remoteArchive reports a tar archive named host:file, which tar opens over rsh or ssh.
func remoteArchive(args []Word) bool {
	for i, a := range args {
		if !a.Known {
			continue
		}
		v := a.Value
		switch {
		case strings.HasPrefix(v, "--file="):
			v = strings.TrimPrefix(v, "--file=")
		case (v == "-f" || v == "--file") && i+1 < len(args):
			v = args[i+1].Value
		case (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") || i == 0) && strings.Contains(v, "f"):
			// A cluster such as -czf (or czf, the old style) takes the next word as the
			// archive.
			if i+1 < len(args) {
				v = args[i+1].Value
			}
		default:
			continue
		}
		if strings.Contains(v, ":") {
			return true
		}
	}
	return false
}

func hasChild(a *Analysis, c *Command) bool {
	for _, o := range a.Commands {
		if o.Parent == c && !o.Speculative {
			return true
		}
	}
	return false
}

// urlEgress is the hosts of curl's or wget's URLs: every operand is a URL (curl takes a bare
// host name for http://), and none may be unknown. An option that sends the request through
// another host, reads more options from a file or takes URLs from elsewhere makes the
// destination unknown, as does a configuration file in the home directory, which can.
func urlEgress(pc *permission.Context, c *Command, args []Word, spec optSpec, redirecting map[string]bool, rc string) ([]string, string) {
	name := c.Argv[0].Value
	if c.ExtraArgs {
		return nil, name + " receives more arguments when it runs"
	}
	if home := pc.Home(); home != "" {
		if _, err := os.Lstat(filepath.Join(home, rc)); err == nil {
			return nil, "~/" + rc + " can send " + name + " elsewhere"
		}
	}
	opts, ops := parseArgs(args, spec)
	var urls []Word
	for _, o := range opts {
		if redirecting[o.name] {
			return nil, name + " " + o.name + " sends the request elsewhere"
		}
		if o.name == "--url" {
			urls = append(urls, o.val)
		}
	}
	urls = append(urls, ops...)
	if len(urls) == 0 {
		return nil, name + " has no URL the analysis can read"
	}
	var hosts []string
	for _, w := range urls {
		h, ok := urlHost(w)
		if !ok {
			return nil, name + "'s URL " + w.Src + " cannot be read exactly"
		}
		hosts = append(hosts, h)
	}
	return hosts, ""
}

// urlHost is the host a URL operand connects to: lower-cased, without port or trailing dot.
// Anything the two parsers (Go's here, the program's there) might read differently — spaces,
// backslashes, a glob or brace range, a host that is not a plain name or address — is not
// read at all.
func urlHost(w Word) (string, bool) {
	if !w.Known || w.Glob || strings.ContainsAny(w.Value, " \t\r\n\\{}[]^`\"'<>|") {
		return "", false
	}
	raw := w.Value
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	h := strings.ToLower(u.Hostname())
	if net.ParseIP(h) == nil {
		for _, r := range h {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
				return "", false
			}
		}
	}
	// Every spelling of an address (0x7f.1, 2130706433, ::ffff:127.0.0.1) is the address
	// dialled, in the form the web tool's hosts have (hostform).
	c, err := hostform.Canonical(h)
	return c, err == nil
}

// curlRedirecting and wgetRedirecting are the options that send a request through or to
// another host, or read options or URLs from elsewhere.
var (
	curlRedirecting = map[string]bool{"-x": true, "--proxy": true, "--preproxy": true, "--connect-to": true, "--resolve": true,
		"-K": true, "--config": true, "--socks4": true, "--socks4a": true, "--socks5": true, "--socks5-hostname": true,
		"--proxy1.0": true, "--doh-url": true, "--unix-socket": true, "--abstract-unix-socket": true, "--variable": true,
		"--expand-url": true, "-:": true, "--next": true}
	wgetRedirecting = map[string]bool{"-e": true, "--execute": true, "-i": true, "--input-file": true, "--config": true,
		"-B": true, "--base": true, "--proxy": true}
)
