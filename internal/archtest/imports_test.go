// Package archtest enforces the module's architecture: the import directions (one table,
// rules, of what each package may import, beside the pure-core and core-leaf rules and who may
// import the CLI, the chat and each SDK), one path for a tool call, Linux-only calls in Linux
// files, the binary's contents, and docs/architecture.md's agreement with go list.
package archtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/reinsdev/reins"

type goPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
	Module     *struct{ Path string }
}

// systems are the operating systems whose builds the import rules check: a file for one of
// them (lock_windows.go, lstat_unix.go) has imports of its own.
var systems = []string{"linux", "darwin", "windows"}

// listPackages returns the module's packages and their dependencies on any of the systems:
// each package's imports and dependencies are the union of what `go list -deps` reports for
// each. The lists are read once and shared: each of the package's tests only reads them, and
// one `go list` of the module takes about as long as all the checks on it.
func listPackages(t *testing.T) map[string]goPackage {
	t.Helper()
	byOS := listBySystem(t)
	union := map[string]goPackage{}
	for _, goos := range systems {
		for path, p := range byOS[goos] {
			u, ok := union[path]
			if !ok {
				u = goPackage{ImportPath: path, Standard: p.Standard, Module: p.Module}
			}
			u.Imports = appendNew(u.Imports, p.Imports)
			u.Deps = appendNew(u.Deps, p.Deps)
			union[path] = u
		}
	}
	return union
}

// listBySystem returns what `go list -deps` reports for each of the systems.
func listBySystem(t *testing.T) map[string]map[string]goPackage {
	t.Helper()
	pkgsOnce.Do(func() {
		pkgs = map[string]map[string]goPackage{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, goos := range systems {
			wg.Go(func() {
				list, err := goList(goos)
				mu.Lock()
				defer mu.Unlock()
				pkgs[goos] = list
				pkgsErr = cmp.Or(pkgsErr, err)
			})
		}
		wg.Wait()
	})
	if pkgsErr != nil {
		t.Fatal(pkgsErr)
	}
	return pkgs
}

func appendNew(to, from []string) []string {
	for _, s := range from {
		if !slices.Contains(to, s) {
			to = append(to, s)
		}
	}
	return to
}

var (
	pkgsOnce sync.Once
	pkgs     map[string]map[string]goPackage
	pkgsErr  error
)

func goList(goos string) (map[string]goPackage, error) {
	cmd := exec.Command("go", "list", "-deps", "-json", module+"/...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOOS="+goos)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pkgs := map[string]goPackage{}
	dec := json.NewDecoder(out)
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("reading go list's output for %s: %w", goos, err)
		}
		pkgs[p.ImportPath] = p
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("GOOS=%s go list: %v\n%s", goos, err, stderr.String())
	}
	return pkgs, nil
}

// The import rules, in one table and three rules beside it:
//
//   - rules: for each package whose place the architecture fixes, what it may import
//     directly (an allow list of ours, a deny list of ours, and what it may import from
//     outside the module). A package a rule's key covers must satisfy it; several keys may
//     cover one package (a tree and one of its members), and it must satisfy them all.
//   - the pure core (corePackages) depends, transitively, only on the standard library,
//     coreModules, each other and the core leaves;
//   - the core leaves (coreLeaves) depend, transitively, only on the standard library,
//     golang.org/x/sys and each other;
//   - sdkHomes and importers say who may import a module or a package of ours.
//
// A new package gets a row in rules (or in coreLeaves); a key is a package path relative to
// the module, and a key or an entry ending in "/..." covers the package and its tree.

// rule is what the packages a key of rules covers may import directly.
type rule struct {
	// ours are the only packages of ours they may import; nil allows any but never's.
	ours []string
	// never are packages of ours they must not import: a layer's deny list, where an allow
	// list would only repeat today's imports.
	never []string
	// others are the packages outside the module and the standard library they may import,
	// by prefix: nil allows none, anything allows all.
	others []string
	// std, when set, are the only standard packages they may import.
	std []string
	// goos, when set, is the only system whose build the row checks.
	goos string
}

// anything, as rule.others, allows every package outside the module.
var anything = []string{"*"}

// xsys is golang.org/x/sys: system calls, for the core and the leaves alike.
var xsys = []string{"golang.org/x/sys/"}

// upper are the agent layers: the library below them never imports them.
var upper = []string{"agent/...", "tools/...", "session/...", "internal/..."}

var rules = map[string]rule{
	// The library's lower layers never import the agent layers (the core is held tighter
	// still by the pure-core rule).
	"tool": {never: upper, others: anything},
	"llm":  {never: upper, others: anything},

	// Definitions are data: they know nothing of the loop or the tools they name.
	"agentdef": {never: []string{"agent/...", "tools/...", "session/...", "internal/..."}, others: anything},
	// The Agent tool runs the agent loop; the front ends sit above it.
	"tools/agenttool": {never: []string{"session/...", "internal/..."}, others: anything},
	"agent":           {never: []string{"tools/...", "session/...", "internal/..."}, others: anything},
	// Session assembly sits below every front end: it takes plain options, so the CLI, the
	// chat, the SDK mode, mcp serve, a test or an embedder build the same session; cobra is
	// the CLI's alone (sdkHomes).
	"internal/app": {never: []string{"internal/cli/...", "internal/tui/...", "internal/sdkproto/...", "mcp/serve/..."}, others: anything},
	// Its parts sit below it and name what they use: none imports internal/app (whose
	// UsageError is usage.Error, so that a part can return one).
	"internal/app/usage": {ours: []string{}},
	// The model provider: the adapters, the settings that choose one, an apiKeyHelper's process
	// group ended the one way and watched by the hooks' guard.
	"internal/app/provider": {ours: []string{"hooks", "internal/app/usage", "internal/procgroup", "llm", "llm/anthropic", "llm/bedrock", "llm/openaicompat", "llm/vertex", "settings"}, others: anything},
	// The session's OS sandbox: the sandbox and each system's backends, built from the
	// settings and the permission context; it marks the sandbox's first start (built).
	"internal/app/sessionsandbox": {ours: []string{"built", "permission", "sandbox", "sandbox/bwrap", "sandbox/landlock", "sandbox/proxy", "sandbox/seatbelt", "settings"}, others: anything},
	// The auto-mode classifier sees a call through permission and the conversation through
	// llm only: it cannot reach a tool's result or run anything.
	"classifier": {never: []string{"agent/...", "tool/...", "tools/...", "toolcall/...", "hooks/...", "session/...", "internal/..."}, others: anything},

	// The MCP client and server adapt the go-sdk to the tool contract and the permission
	// engine and know nothing of the agent loop, the CLI or a UI; the client ends a stdio
	// server's process tree the one way (internal/procgroup; on Windows, where a tree is
	// found from a snapshot).
	"mcp/client": {ours: []string{"tool", "permission", "boundedfile", "tracecontext", "internal/procgroup", "posjson"}, others: anything},
	"mcp/serve":  {ours: []string{"tool", "tools/...", "permission", "toolcall"}, others: anything},
	// The one path of a call: every front end runs calls through it, and it knows only the
	// tool contract, the engine and the hooks it runs — never a front end or the agent loop.
	"toolcall":         {ours: []string{"tool", "permission", "hooks"}, others: anything},
	"tools/toolsearch": {ours: []string{"tool"}, others: anything},
	// Host canonicalisation: the standard library, golang.org/x/net/idna and hostform.
	"tools/web/hostcanon": {ours: []string{"hostform"}, others: anything},
	// A front-end adapter speaks a wire protocol over the agent's events and the permission
	// engine, and never reaches into another front end.
	"internal/sdkproto": {ours: []string{"agent", "permission", "session", "llm", "tool", "hooks"}, others: anything},
	// Checkpoints keep files and put them back; the agent and the front ends call them, never
	// the reverse. The capture reads a call through the pipeline's contract and the Bash
	// analysis.
	"checkpoint":         {ours: []string{}, others: anything},
	"checkpoint/capture": {ours: []string{"checkpoint", "toolcall", "bashrules", "permission"}, others: anything},
	// The Markdown renderer turns text into lines and knows nothing of the UI around it.
	"internal/tui/markdown": {ours: []string{}, others: anything},
	// The damage count's git view runs git for bashrules, which may not run programs itself.
	"bashrules/gitcli": {ours: []string{"bashrules"}, others: anything},
	// The command line's reading sits below the verdict stages: it parses and walks a line into
	// its commands, asking only the knowledge base what programs do (the checker adds the rest
	// through hooks), so no stage's rules or paths reach the walk.
	"bashrules/cmdline": {ours: []string{"bashrules/knowledge"}, others: anything},
	// Replay reads what was recorded and asks the engine again: it runs nothing (no toolcall,
	// no hooks, no agent) and reaches no front end.
	"replay": {ours: []string{"audit", "boundedfile", "llm", "permission", "session", "tool"}, others: anything},
	// Skills are data: files read and rules produced, applied by the session.
	"skills": {ours: []string{"permission", "frontmatter", "boundedfile"}, others: anything},
	// A plugin is folders of configuration: it exposes its parts to the loaders of each kind
	// and knows no session, tool or front end.
	"plugins": {ours: []string{"agentdef", "boundedfile", "mcp/client", "posjson", "settings", "skills"}, others: anything},
	// The Skill tool reads skills and is decided by the engine; it knows no session.
	"tools/skilltool": {ours: []string{"tool", "permission", "skills", "tools/internal/schemax"}, others: anything},

	// The rows below import nothing outside the standard library (and x/sys where they make
	// system calls).
	//
	// Hooks feed the permission engine and are called by the agent, never the reverse.
	"hooks": {ours: []string{"permission", "internal/procgroup", "tracecontext"}},
	// The trace context a process inherits (TRACEPARENT): two strings, known to the packages
	// that start processes without their knowing OpenTelemetry.
	"tracecontext": {ours: []string{}},
	// Process groups are ended one way, by whoever started them.
	"internal/procgroup": {ours: []string{}, others: xsys},
	// The watchdog runs as its own process beside reins and must stay small and obvious.
	"internal/procguard": {ours: []string{"internal/procgroup"}},
	// Worktrees are git runs and files: the session assembly uses them, never the reverse.
	"worktree": {ours: []string{"worktree/gitdir", "boundedfile", "pathrule", "internal/procgroup"}},
	// Memory files are text for the prompt: found and read through the bounded reader, never
	// knowing the agent that shows them (what is a secret comes in as a function).
	"memory": {ours: []string{"boundedfile"}},
	// Slash commands are text and the rules they bring: read through the shared front-matter
	// reader, expanded through a Host the front end supplies, so the package runs nothing
	// itself and knows neither the tools nor the agent.
	"commands": {ours: []string{"boundedfile", "frontmatter", "permission"}},
	// Front matter is a file format: its errors and suggestions come from posjson, never from
	// settings (which would pull the rule sources into every definition reader).
	"frontmatter": {ours: []string{"posjson"}, others: []string{"go.yaml.in/yaml/v3"}},
	// The SlashCommand tool expands through the Expander the session gives it.
	"tools/slashcommand": {ours: []string{"commands", "permission", "tool"}},
	// The audit log is a file format with a chain: it knows no event, tool or engine (the
	// session assembly turns the agent's events into its entries); boundedfile names the
	// file types it refuses.
	"audit": {ours: []string{"boundedfile"}},
	// The policy bundle is bytes, a signature and a cache: it returns a verified document and
	// settings reads it like a managed file.
	"settings/policy": {ours: []string{}},
	// What programs do is data a reviewer reads: the knowledge base knows nothing of rules,
	// the engine or the shell parser (bashrules asks it); it only records that it was built.
	"bashrules/knowledge": {ours: []string{"built", "posjson"}},
	// The core leaves (coreLeaves holds them to the standard library, x/sys and each other;
	// these rows name which of each other).
	"boundedfile":     {ours: []string{}},
	"filelock":        {ours: []string{}, others: xsys},
	"hostform":        {ours: []string{}},
	"worktree/gitdir": {ours: []string{"boundedfile"}},
	"built":           {ours: []string{}},
	"posjson":         {ours: []string{}},

	// The sandbox is a leaf: it enforces the paths and hosts it is given and knows nothing of
	// the permission engine, the settings or the tools (the CLI hands it the settings).
	// Outside the standard library it uses only x/sys/unix and x/net/bpf (Landlock's system
	// calls and the seccomp filter).
	"sandbox/...": {ours: []string{"sandbox/..."}, others: []string{"golang.org/x/sys/unix", "golang.org/x/net/bpf"}},
	// sandbox/confine's init runs the helpers the backends re-execute reins as. A package
	// initialises once its imports have, and Go initialises the ready packages in the order
	// of their paths: with only these imports confine is the 16th of about 300 packages to
	// initialise; importing golang.org/x/sys/unix, the 104th, would make every sandboxed
	// command wait for the 88 between (GODEBUG=inittrace=1; bench/sandbox.sh). So it makes
	// its system calls through syscall, with unsafe for the pointers. The helpers run on Linux
	// only; elsewhere the package only says so.
	"sandbox/confine": {ours: []string{}, std: []string{"errors", "syscall", "unsafe"}, goos: "linux"},
}

// importers names, for packages of ours, the only packages that may import them.
var importers = map[string][]string{
	// The CLI sits on top: nothing but the binary's main imports it.
	"internal/cli/...": {"cmd/reins", "internal/cli/..."},
	"cmd/...":          {"cmd/reins", "internal/cli/..."},
	// The interactive mode is a front end like -p: only the CLI chooses it, so nothing else
	// may depend on it (and its Bubble Tea types cannot leak, see sdkHomes).
	"internal/tui/...": {"internal/cli/...", "internal/tui/..."},
}

// corePackages are the pure core: each, with its tree, may depend (transitively) only on the
// standard library, coreModules, each other and coreLeaves.
var corePackages = []string{"permission", "pathrule", "bashrules", "settings"}

// coreModules are the modules outside ours the core may depend on: the shell parser and
// system calls.
var coreModules = []string{"mvdan.cc/sh/v3/", "golang.org/x/sys/"}

// coreLeaves are packages of ours that the core may import: they depend only on the standard
// library, golang.org/x/sys and each other. boundedfile is how settings reads its files;
// hostform is how bashrules reads the hosts of curl's and wget's URLs; built records that the
// knowledge base was built (on first use); worktree/gitdir is how settings finds a worktree's
// main repository for trust; filelock is how settings keeps two processes from rewriting one
// file at once.
var coreLeaves = []string{"boundedfile", "hostform", "built", "worktree/gitdir", "filelock", "posjson"}

// sdkHomes names, for each third-party module that wraps an outside service or a UI, the only
// packages of ours that may import it directly.
var sdkHomes = map[string][]string{
	"github.com/spf13/cobra":                 {"internal/cli/..."},
	"github.com/modelcontextprotocol/go-sdk": {"mcp/client/...", "mcp/serve/...", "bench/mcpserver/..."}, // the benchmarks' server, for reins and Claude Code alike
	"charm.land/":                            {"internal/tui/..."},
	"github.com/charmbracelet/":              {"internal/tui/..."},
	// The Markdown parser serves only the terminal renderer.
	"github.com/yuin/goldmark": {"internal/tui/markdown/..."},
	// Definition files (sub-agents, slash commands, skills) are Markdown with YAML front matter.
	"go.yaml.in/yaml": {"agentdef/...", "frontmatter/..."},
	// The clouds' SDKs sign and authenticate requests for Anthropic's models on Amazon Bedrock
	// and Google Vertex AI, each in its adapter (and its test fake beneath it).
	"github.com/aws/":     {"llm/bedrock/..."},
	"golang.org/x/oauth2": {"llm/vertex/..."},
	"cloud.google.com/":   {"llm/vertex/..."},
	// OpenTelemetry's types stop at the telemetry adapter; the rest of the tree sees a trace
	// context only as the two strings of package tracecontext.
	"go.opentelemetry.io/": {"telemetry/..."},
}

// TestImportDirections checks every package of the module, as each of the systems builds it,
// against the rules above; each failure names the system, the package, the import and the
// rule it breaks.
func TestImportDirections(t *testing.T) {
	byOS := listBySystem(t)
	used := map[string]bool{}
	for _, goos := range systems {
		pkgs := byOS[goos]
		t.Run(goos, func(t *testing.T) {
			t.Run("rules", func(t *testing.T) { checkRules(t, goos, pkgs, used) })
			t.Run("core", func(t *testing.T) {
				allowed := func(d string) bool {
					return hasPrefix(coreModules, d) || isOurs(d, append(trees(corePackages), coreLeaves...))
				}
				checkDeps(t, pkgs, trees(corePackages), "core package", allowed)
			})
			t.Run("leaves", func(t *testing.T) {
				allowed := func(d string) bool { return hasPrefix(xsys, d) || isOurs(d, coreLeaves) }
				checkDeps(t, pkgs, coreLeaves, "core leaf", allowed)
			})
			t.Run("importers", func(t *testing.T) { checkImporters(t, pkgs, used) })
			t.Run("sdks", func(t *testing.T) { checkSDKs(t, pkgs) })
		})
	}
	for key := range rules {
		if !used["rules "+key] {
			t.Errorf("rules[%q] covers no package: drop the row", key)
		}
	}
	for key := range importers {
		if !used["importers "+key] {
			t.Errorf("importers[%q] covers no package: drop the row", key)
		}
	}
}

// checkRules checks each package against every row of rules that covers it, and records the
// rows used.
func checkRules(t *testing.T, goos string, pkgs map[string]goPackage, used map[string]bool) {
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok {
			continue
		}
		for key, r := range rules {
			if !covers(key, rel) {
				continue
			}
			used["rules "+key] = true
			if r.goos != "" && r.goos != goos {
				continue
			}
			for _, imp := range p.Imports {
				if why := r.refuses(pkgs[imp].Standard, imp); why != "" {
					t.Errorf("%s imports %s: rules[%q] %s", rel, imp, key, why)
				}
			}
		}
	}
}

func checkImporters(t *testing.T, pkgs map[string]goPackage, used map[string]bool) {
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok {
			continue
		}
		for key := range importers {
			if covers(key, rel) {
				used["importers "+key] = true
			}
		}
		for _, imp := range p.Imports {
			irel, ok := ours(imp)
			if !ok {
				continue
			}
			for key, who := range importers {
				if covers(key, irel) && !matchesAny(who, rel) {
					t.Errorf("%s imports %s; only %v may", rel, irel, who)
				}
			}
		}
	}
}

func checkSDKs(t *testing.T, pkgs map[string]goPackage) {
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			for sdk, homes := range sdkHomes {
				if strings.HasPrefix(imp, sdk) && !matchesAny(homes, rel) {
					t.Errorf("%s imports %s; only %v may", rel, imp, homes)
				}
			}
		}
	}
}

// refuses says why r does not let a package import imp, or "" when it does.
func (r rule) refuses(std bool, imp string) string {
	if std {
		if r.std != nil && !slices.Contains(r.std, imp) {
			return fmt.Sprintf("allows only %v of the standard library", r.std)
		}
		return ""
	}
	irel, mine := ours(imp)
	switch {
	case !mine && !slices.Equal(r.others, anything) && !hasPrefix(r.others, imp):
		if r.others == nil {
			return "allows nothing outside the standard library and the module"
		}
		return fmt.Sprintf("allows only %v outside the module", r.others)
	case mine && r.ours != nil && !matchesAny(r.ours, irel):
		return fmt.Sprintf("allows only %v of ours", r.ours)
	case mine && matchesAny(r.never, irel):
		return fmt.Sprintf("forbids %v", r.never)
	}
	return ""
}

// checkDeps checks the transitive dependencies of each package that roots cover: each must be
// standard or allowed.
func checkDeps(t *testing.T, pkgs map[string]goPackage, roots []string, what string, allowed func(string) bool) {
	checked := 0
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok || !matchesAny(roots, rel) {
			continue
		}
		checked++
		for _, d := range p.Deps {
			if !pkgs[d].Standard && !allowed(d) {
				t.Errorf("%s %s depends on %s", what, rel, d)
			}
		}
	}
	if checked < len(roots)/2 {
		t.Fatalf("found only %d of the %d %ss; is the module list right?", checked, len(roots), what)
	}
}

func ours(p string) (string, bool) {
	if p == module {
		return "", true
	}
	return strings.CutPrefix(p, module+"/")
}

// covers reports whether the key or entry pat names rel: itself, or with "/..." its tree.
func covers(pat, rel string) bool {
	if tree, ok := strings.CutSuffix(pat, "/..."); ok {
		return rel == tree || strings.HasPrefix(rel, tree+"/")
	}
	return rel == pat
}

func matchesAny(pats []string, rel string) bool {
	return slices.ContainsFunc(pats, func(p string) bool { return covers(p, rel) })
}

// isOurs reports whether import path p is a package of ours that pats cover.
func isOurs(p string, pats []string) bool {
	rel, ok := ours(p)
	return ok && matchesAny(pats, rel)
}

func hasPrefix(prefixes []string, p string) bool {
	return slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(p, pre) })
}

// trees is each package with its tree.
func trees(pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		out = append(out, p+"/...")
	}
	return out
}

// notInBinary lists packages the reins binary must not contain, with the reason. An entry
// ending in "/" covers the package and its tree.
var notInBinary = map[string]string{
	// llm/anthropic speaks the Messages API itself; the SDK's reflective encoder and decoder
	// cost a seventh of a turn's CPU and its 7 MB of code count in the binary's memory. Its
	// tests compare the adapter's bodies and decoded streams with the SDK's.
	"github.com/anthropics/anthropic-sdk-go/": "the Anthropic SDK is the llm/anthropic tests' oracle only",
	// The rest have costly initialisers (measured with GODEBUG=inittrace=1), which Go runs in
	// every run of reins, headless ones included.
	// glamour's highlighter: decodes every lexer and style it embeds, about 10 ms and 4 MB.
	"github.com/alecthomas/chroma/": "chroma: about 10 ms of init",
	"charm.land/glamour/":           "glamour pulls chroma and bluemonday",
	// An HTML sanitiser with CSS tables, about 1 ms.
	"github.com/microcosm-cc/bluemonday/": "bluemonday: about 1 ms of init",
	// Compiles a dozen regexps at init, about 0.5 ms; internal/tui/markdown has its own GFM
	// parsers (extension/ast, the node types, is cheap and allowed).
	"github.com/yuin/goldmark/extension": "goldmark's extension package: about 0.5 ms of init",
}

// inBinaryEntry reports whether the notInBinary entry covers pkg.
func inBinaryEntry(entry, pkg string) bool {
	if strings.HasSuffix(entry, "/") {
		return pkg+"/" == entry || strings.HasPrefix(pkg, entry)
	}
	return pkg == entry
}

func TestBinaryLeavesOutListedPackages(t *testing.T) {
	pkgs := listPackages(t)
	cmd, ok := pkgs[module+"/cmd/reins"]
	if !ok {
		t.Fatal("cmd/reins not found")
	}
	for _, d := range cmd.Deps {
		for entry, why := range notInBinary {
			if inBinaryEntry(entry, d) {
				t.Errorf("reins links %s: %s", d, why)
			}
		}
	}
	// Not only the binary's packages: a package outside it today may be linked tomorrow.
	for path, p := range pkgs {
		for _, imp := range p.Imports {
			for entry, why := range notInBinary {
				if inBinaryEntry(entry, imp) {
					t.Errorf("%s imports %s outside its tests: %s", path, imp, why)
				}
			}
		}
	}
}
