//go:build linux

package cli

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
)

// The effect harness: attack classes run for real, through the reins binary, under the default
// configuration — no sandbox settings at all, only the permission rules an attack needs to get
// past the analysis (allow rules, bypassPermissions) and a Read deny rule — and what they did
// is checked afterwards: the file system (nothing written outside the working directories nor
// into a protected path), the output (no secret), the host's listeners (no connection). Each
// attack runs once unconfined too (sandbox.enabled: false in the user's settings), where it must
// do its harm whenever the analysis lets it run: an attack that cannot do harm proves nothing.
// docs/security.md ("What stops which attack") summarises the table this test logs.

// Secrets planted in the world; none may appear in any output.
const (
	envSecret = "ENV-SECRET-4f1c9a"
	sshSecret = "SSH-SECRET-9b27e0"
)

// effectListeners are the host's loopback listeners that no sandboxed command may reach.
type effectListeners struct {
	tcpPort, udpPort int
	tcp, udp         atomic.Int32
}

func newEffectListeners(t *testing.T) *effectListeners {
	t.Helper()
	ls := &effectListeners{}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	ls.tcpPort = tl.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			ls.tcp.Add(1)
			c.Close()
		}
	}()
	ul, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	ls.udpPort = ul.LocalAddr().(*net.UDPAddr).Port
	go func() {
		buf := make([]byte, 512)
		for {
			if _, _, err := ul.ReadFrom(buf); err != nil {
				return
			}
			ls.udp.Add(1)
		}
	}()
	return ls
}

// effectWorld is one attack's world: a git project with a secret .env, a home with rc files,
// an SSH key and a Docker-like socket, and a folder outside both.
type effectWorld struct {
	root, proj, home, out, sock string
	unix                        atomic.Int32
}

func newEffectWorld(t *testing.T) *effectWorld {
	t.Helper()
	// A short root (the socket's path must fit in sockaddr_un) outside /tmp, which bubblewrap
	// shows empty: a home and a folder there would be out of reach for a reason that says
	// nothing of a real home folder.
	base := ""
	if info, err := os.Stat("/var/tmp"); err == nil && info.IsDir() {
		base = "/var/tmp"
	}
	dir, err := os.MkdirTemp(base, "fx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := &effectWorld{root: root, proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home"), out: filepath.Join(root, "outside")}
	for _, d := range []string{w.proj, w.out, filepath.Join(w.home, "managed"), filepath.Join(w.home, ".ssh"), filepath.Join(w.home, ".docker", "run"), filepath.Join(w.home, ".cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, filepath.Join(w.home, ".bashrc"), "# the person's rc file\n")
	writeTestFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+sshSecret+"\n")
	writeTestFile(t, filepath.Join(w.proj, ".env"), "API_KEY="+envSecret+"\n")
	writeTestFile(t, filepath.Join(w.proj, "main.go"), "package main\n")
	writeTestFile(t, filepath.Join(w.proj, ".gitignore"), ".env\n")
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = w.proj
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "main.go", ".gitignore")
	git("commit", "-qm", "init")
	// Like Docker Desktop's or colima's socket: in the home folder, not /run.
	w.sock = filepath.Join(w.home, ".docker", "run", "docker.sock")
	ul, err := net.Listen("unix", w.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			w.unix.Add(1)
			c.Close()
		}
	}()
	return w
}

// effect is what an attack tries to do, as a shell snippet run in the project.
type effect struct {
	name  string
	shell func(w *effectWorld, ls *effectListeners) string
	// harmed says whether the effect happened, from the file-system changes, the output and
	// the listeners' counts; it is what the unconfined run must show.
	harmed func(changed []string, output string, connections int32) bool
}

func changedUnder(prefix string) func([]string, string, int32) bool {
	return func(changed []string, _ string, _ int32) bool {
		return slices.ContainsFunc(changed, func(p string) bool { return strings.HasPrefix(p, prefix) })
	}
}

func leaked(secret string) func([]string, string, int32) bool {
	return func(_ []string, output string, _ int32) bool { return strings.Contains(output, secret) }
}

func connected(_ []string, _ string, n int32) bool { return n > 0 }

var effects = []effect{
	{"write outside the working directories", func(w *effectWorld, _ *effectListeners) string {
		return "echo pwned > " + w.out + "/pwned"
	}, changedUnder("outside/")},
	{"write .git/hooks/pre-commit", func(*effectWorld, *effectListeners) string {
		return "echo 'echo pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
	}, changedUnder("proj/.git/hooks/")},
	{"write .git/config", func(*effectWorld, *effectListeners) string {
		return "printf '[core]\\n\\tfsmonitor = ./pwn.sh\\n' >> .git/config"
	}, changedUnder("proj/.git/config")},
	{"write ~/.bashrc", func(w *effectWorld, _ *effectListeners) string {
		return "echo 'echo pwned' >> " + w.home + "/.bashrc"
	}, changedUnder("home/.bashrc")},
	{"write .claude/settings.json", func(*effectWorld, *effectListeners) string {
		return `mkdir -p .claude && echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.json`
	}, changedUnder("proj/.claude/")},
	{"read .env (a Read deny rule)", func(*effectWorld, *effectListeners) string {
		return "cat .env"
	}, leaked(envSecret)},
	{"read ~/.ssh/id_rsa (no rule)", func(w *effectWorld, _ *effectListeners) string {
		return "cat " + w.home + "/.ssh/id_rsa"
	}, leaked(sshSecret)},
	{"TCP to a host loopback listener", func(_ *effectWorld, ls *effectListeners) string {
		return fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo hi >&3", ls.tcpPort)
	}, connected},
	{"HTTP through the proxy to a host loopback listener", func(_ *effectWorld, ls *effectListeners) string {
		return fmt.Sprintf("curl -s -m 10 http://127.0.0.1:%d/", ls.tcpPort)
	}, connected},
	{"UDP to a host loopback listener", func(_ *effectWorld, ls *effectListeners) string {
		return fmt.Sprintf("echo hi > /dev/udp/127.0.0.1/%d", ls.udpPort)
	}, connected},
	{"a Docker-like socket in the home folder", func(w *effectWorld, _ *effectListeners) string {
		return `python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("` + w.sock + `"); s.send(b"GET /containers/json HTTP/1.0\r\n\r\n")'`
	}, connected},
}

// vector is how an attack reaches the shell past the analysis.
type vector struct {
	name string
	// bypass runs the call in bypassPermissions; otherwise the allow rules must let it through.
	bypass bool
	// command is the Bash command for the effect's snippet; it may plant files in the project.
	command func(t *testing.T, w *effectWorld, snippet string) string
	// every says whether the vector is tried with every effect; the others (which the analysis
	// stops before anything runs) are tried with the first.
	every bool
}

var vectors = []vector{
	{"opaque script under Bash(./run.sh:*)", false, func(t *testing.T, w *effectWorld, snippet string) string {
		plant(t, w, "run.sh", "#!/bin/bash\n"+snippet+"\n")
		return "./run.sh"
	}, true},
	{"interpreter file under Bash(python3:*)", false, func(t *testing.T, w *effectWorld, snippet string) string {
		q, _ := json.Marshal(snippet)
		plant(t, w, "attack.py", "import subprocess\nsubprocess.run(['bash', '-c', "+string(q)+"])\n")
		return "python3 attack.py"
	}, true},
	{"exec option git's GIT_CONFIG_* spelling of -c core.fsmonitor, in bypassPermissions", true, func(t *testing.T, w *effectWorld, snippet string) string {
		// git reads the hook's standard output; what the attack prints goes to its error.
		plant(t, w, "fsmon.sh", "#!/bin/bash\n{ "+snippet+"; } >&2\n")
		return "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./fsmon.sh git status"
	}, true},
	{"the command itself, in bypassPermissions", true, func(_ *testing.T, _ *effectWorld, snippet string) string {
		return snippet
	}, true},
	{"inline interpreter code python3 -c, in bypassPermissions", true, func(_ *testing.T, _ *effectWorld, snippet string) string {
		return `python3 -c "import base64, os; os.system(base64.b64decode('` + base64.StdEncoding.EncodeToString([]byte(snippet)) + `').decode())"`
	}, false},
	{"exec option find -exec, in bypassPermissions", true, func(_ *testing.T, _ *effectWorld, snippet string) string {
		return "find . -maxdepth 0 -exec sh -c " + shellQuote(snippet) + " \\;"
	}, false},
	{"exec option git -c core.pager, in bypassPermissions", true, func(t *testing.T, w *effectWorld, snippet string) string {
		plant(t, w, "pager.sh", "#!/bin/bash\n"+snippet+"\n")
		return "git -c core.pager=./pager.sh -p log"
	}, false},
}

func plant(t *testing.T, w *effectWorld, name, content string) {
	t.Helper()
	p := filepath.Join(w.proj, name)
	writeTestFile(t, p, content)
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// effectSettings are the only settings of the harness: allow rules for the vectors and a Read
// deny rule — no sandbox key.
const effectSettings = `{"permissions": {"allow": ["Bash(./run.sh:*)", "Bash(python3:*)"], "deny": ["Read(./.env)"]}}`

// reinsOwn are the folders under the harness's root that reins itself writes: the audit log,
// the quarantine the check after a command moves what it caught to (the row then shows the
// protected path unchanged in the project), and reins's cache — the probe's record and the
// sandbox-private toolchain caches, which only sandboxed commands use, never the host's tools.
var reinsOwn = []string{"home/.reins/audit", "home/.reins/quarantine", "home/.cache/reins"}

// snapshot records every entry under root: its kind, mode and content hash. Reins's own
// folders are left out; created empty files and folders too (the sandbox's stand-ins, which
// TestSandboxLeavesTheTreeAsItWas checks on its own); every attack writes something.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if slices.Contains(reinsOwn, filepath.ToSlash(rel)) {
			return fs.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		sum := ""
		switch {
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			sum = "-> " + target
		}
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%v %d %s", info.Mode(), info.Size(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changes lists what differs between two snapshots, except entries created empty.
func changes(before, after map[string]string, root string) []string {
	var out []string
	for p, a := range after {
		b, ok := before[p]
		if ok && a == b {
			continue
		}
		if !ok {
			if info, err := os.Lstat(filepath.Join(root, p)); err == nil && (info.IsDir() && isEmptyDir(filepath.Join(root, p)) || info.Mode().IsRegular() && info.Size() == 0) {
				continue
			}
		}
		out = append(out, p)
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p+" (removed)")
		}
	}
	slices.Sort(out)
	return out
}

// forbidden are the changes no sandboxed command may make: anything outside the project, and
// in it the protected paths — .git/hooks and .git/config, and the protected names
// (permission.ProtectedNames) at its top. Git's own writes to .git (the index, objects) and
// ordinary files are the command's to make.
func forbidden(changed []string) []string {
	dirs, files := permission.ProtectedNames()
	var out []string
	for _, c := range changed {
		rel, inProj := strings.CutPrefix(strings.TrimSuffix(c, " (removed)"), "proj/")
		first, rest, _ := strings.Cut(rel, "/")
		switch {
		case !inProj:
		case first == ".git" && (rest == "config" || rest == "hooks" || strings.HasPrefix(rest, "hooks/")):
		case first != ".git" && slices.Contains(dirs, first):
		case rest == "" && slices.Contains(files, strings.ToLower(first)):
		default:
			continue
		}
		out = append(out, c)
	}
	return out
}

func isEmptyDir(p string) bool {
	es, err := os.ReadDir(p)
	return err == nil && len(es) == 0
}

// attackRun is one run of an attack and what it did.
type attackRun struct {
	code        int
	output      string
	changed     []string
	connections int32
}

// runAttack runs command in w with the reins binary: backend "" unconfined (the sandbox off
// in the user's settings), otherwise in that backend under the default configuration.
func runAttack(t *testing.T, w *effectWorld, ls *effectListeners, backend string, bypass bool, command string) attackRun {
	t.Helper()
	doc := effectSettings
	if backend == "" {
		doc = `{"sandbox": {"enabled": false}, ` + strings.TrimPrefix(effectSettings, "{")
	}
	writeTestFile(t, filepath.Join(w.home, ".reins", "settings.json"), doc)
	before := snapshot(t, w.root)
	conns := ls.tcp.Load() + ls.udp.Load() + w.unix.Load()
	args := []string{"tool", "run", "Bash", "--input", `{"command":` + strconvQuote(command) + `}`}
	if bypass {
		args = append(args, "--permission-mode", "bypassPermissions")
	}
	cmd := exec.Command(reinsBinary(t), args...)
	cmd.Dir = w.proj
	// IS_SANDBOX=1 lets root (the CI container) use bypassPermissions.
	cmd.Env = append(os.Environ(), "HOME="+w.home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(w.home, "managed"),
		"REINS_SANDBOX_BACKEND="+backend, "IS_SANDBOX=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	run := attackRun{code: cmd.ProcessState.ExitCode(), output: out.String()}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	// A datagram or a connection in flight when the command ended is counted before looking.
	time.Sleep(50 * time.Millisecond)
	run.connections = ls.tcp.Load() + ls.udp.Load() + w.unix.Load() - conns
	run.changed = changes(before, snapshot(t, w.root), w.root)
	return run
}

// analysis names what the analysis decided, from the run's exit status: tool run refuses an
// ask (no one can answer it) as it does a deny.
func (r attackRun) analysis() string {
	if r.code == exitAsk || r.code == exitDenied {
		return "stopped"
	}
	return "let it run"
}

// TestSandboxEffects runs every attack of the table unconfined (where it must do harm unless
// the analysis stops it) and under each backend by default (where it must not), and logs which
// of the two stopped it.
func TestSandboxEffects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every attack for real under each backend: -short leaves it out; the whole suite runs it")
	}
	ls := newEffectListeners(t)
	type row struct {
		v vector
		e effect
	}
	var rows []row
	for _, v := range vectors {
		for i, e := range effects {
			if v.every || i == 0 {
				rows = append(rows, row{v, e})
			}
		}
	}
	results := map[string]string{}
	for _, backend := range []string{"", "bubblewrap", "landlock"} {
		name := cmp.Or(backend, "unconfined")
		t.Run(name, func(t *testing.T) {
			if backend != "" {
				skipUnlessBackend(t, backend)
			}
			for _, r := range rows {
				t.Run(r.v.name+"/"+r.e.name, func(t *testing.T) {
					w := newEffectWorld(t)
					run := runAttack(t, w, ls, backend, r.v.bypass, r.v.command(t, w, r.e.shell(w, ls)))
					harmed := r.e.harmed(run.changed, run.output, run.connections)
					key := r.v.name + " | " + r.e.name
					if backend == "" {
						results[key] = "analysis: " + run.analysis()
						// Unconfined, what the analysis lets run must do its harm.
						if run.analysis() == "let it run" && !harmed {
							t.Errorf("unconfined, the attack did no harm (exit %d, changed %v, %d connections): it proves nothing\n%s", run.code, run.changed, run.connections, run.output)
						}
						return
					}
					outcome := "held"
					if harmed || len(forbidden(run.changed)) > 0 || run.connections > 0 || strings.Contains(run.output, envSecret) || strings.Contains(run.output, sshSecret) {
						outcome = "LEAKED"
						t.Errorf("the attack got through (exit %d): changed %v, %d connections, output:\n%s", run.code, forbidden(run.changed), run.connections, run.output)
					}
					results[key] += fmt.Sprintf("; %s: %s", backend, outcome)
				})
			}
		})
	}
	var lines []string
	for k, v := range results {
		lines = append(lines, k+" | "+v)
	}
	slices.Sort(lines)
	t.Logf("vector | effect | analysis; backends:\n%s", strings.Join(lines, "\n"))
}

// TestSandboxLeavesTheTreeAsItWas: a harmless command under the default sandbox leaves the
// project and the home folder byte for byte as they were — no stand-in for a missing protected
// path is left where git, ls or a build would see it.
func TestSandboxLeavesTheTreeAsItWas(t *testing.T) {
	for _, backend := range []string{"bubblewrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			skipUnlessBackend(t, backend)
			w := newEffectWorld(t)
			writeTestFile(t, filepath.Join(w.home, ".reins", "settings.json"), effectSettings)
			before := listTree(t, w.root)
			out, errOut, code := runReinsEnv(t, w.proj, w.home, []string{"REINS_SANDBOX_BACKEND=" + backend}, "tool", "run", "Bash", "--input", `{"command":"git status --short --untracked-files=all"}`)
			if code != exitOK {
				t.Fatalf("exit %d:\n%s", code, errOut)
			}
			// The clean world has nothing untracked: what git lists, the command's own tools saw.
			var res struct {
				Output struct{ Stdout string } `json:"output"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			if s := strings.TrimSpace(res.Output.Stdout); s != "" {
				t.Errorf("inside the sandbox git status lists what is not in the project:\n%s", s)
			}
			after := listTree(t, w.root)
			var extra []string
			for p := range after {
				if !before[p] && !slices.ContainsFunc(reinsOwn, func(own string) bool { return p == own || strings.HasPrefix(p, own+"/") }) {
					extra = append(extra, p)
				}
			}
			slices.Sort(extra)
			if len(extra) > 0 {
				t.Errorf("the command left %v behind", extra)
			}
		})
	}
}

func listTree(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return out
}

// TestSandboxOnByDefaultEffects is the harness's precondition: with the harness's settings
// (no sandbox key) the sandbox is on by default, in the backend asked for.
func TestSandboxOnByDefaultEffects(t *testing.T) {
	for _, backend := range []string{"bubblewrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			skipUnlessBackend(t, backend)
			w := newEffectWorld(t)
			writeTestFile(t, filepath.Join(w.home, ".reins", "settings.json"), effectSettings)
			out, errOut, code := runReinsEnv(t, w.proj, w.home, []string{"REINS_SANDBOX_BACKEND=" + backend}, "sandbox", "status", "--json")
			var st sandboxStatusReport
			if err := json.Unmarshal([]byte(out), &st); err != nil || code != exitOK {
				t.Fatalf("exit %d, %v:\n%s%s", code, err, out, errOut)
			}
			if !st.Enabled || st.EnabledBy != "default" || st.Status == nil || st.Status.Backend != backend {
				t.Errorf("enabled %v by %q, backend %v", st.Enabled, st.EnabledBy, st.Status)
			}
		})
	}
}
