// Package archtest enforces the import directions of the module: the pure core depends only
// on the standard library and the shell parser, SDKs stay in their adapter packages, and
// nothing below the CLI imports it.
package archtest

import (
	"encoding/json"
	"fmt"
	"io"
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
}

// listPackages returns the module's packages and their dependencies, as `go list -deps` reports
// them. The list is read once and shared: each of the package's tests only reads it, and one
// `go list` of the module takes about as long as all the checks on it.
func listPackages(t *testing.T) map[string]goPackage {
	t.Helper()
	pkgsOnce.Do(func() { pkgs, pkgsErr = goList() })
	if pkgsErr != nil {
		t.Fatal(pkgsErr)
	}
	return pkgs
}

var (
	pkgsOnce sync.Once
	pkgs     map[string]goPackage
	pkgsErr  error
)

func goList() (map[string]goPackage, error) {
	cmd := exec.Command("go", "list", "-deps", "-json", module+"/...")
	cmd.Dir = "../.."
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
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		pkgs[p.ImportPath] = p
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	return pkgs, nil
}

// corePackages may depend (transitively) only on the standard library, mvdan.cc/sh/v3,
// golang.org/x/sys (system calls), each other and coreLeaves.
var corePackages = []string{"permission", "pathrule", "bashrules", "settings"}

// coreLeaves are packages of ours that the core may import: they import only the standard
// library (ownImports holds them to it). boundedfile is how settings reads its files;
// hostform is how bashrules reads the hosts of curl's and wget's URLs; built records that the
// knowledge base was built (on first use); worktree/gitdir is how settings finds a worktree's
// main repository for trust; filelock is how settings keeps two processes from rewriting one
// file at once.
var coreLeaves = []string{"boundedfile", "hostform", "built", "worktree/gitdir", "filelock"}

// sdkHomes names, for each third-party module that wraps an outside service or a UI, the only
// packages of ours that may import it directly.
var sdkHomes = map[string][]string{
	"github.com/spf13/cobra":                 {"internal/cli"},
	"github.com/modelcontextprotocol/go-sdk": {"mcp/client", "mcp/serve", "bench/mcpserver"}, // the benchmarks' server, for reins and Claude Code alike
	"charm.land/":                            {"internal/tui"},
	"github.com/charmbracelet/":              {"internal/tui"},
	// The Markdown parser serves only the terminal renderer.
	"github.com/yuin/goldmark": {"internal/tui/markdown"},
	// Definition files (sub-agents, slash commands, skills) are Markdown with YAML front matter.
	"go.yaml.in/yaml": {"agentdef", "frontmatter"},
	// The clouds' SDKs sign and authenticate requests for Anthropic's models on Amazon Bedrock
	// and Google Vertex AI, each in its adapter (and its test fake beneath it).
	"github.com/aws/":     {"llm/bedrock"},
	"golang.org/x/oauth2": {"llm/vertex"},
	"cloud.google.com/":   {"llm/vertex"},
	// OpenTelemetry's types stop at the telemetry adapter; the rest of the tree sees a trace
	// context only as the two strings of package tracecontext.
	"go.opentelemetry.io/": {"telemetry"},
}

// neverImports lists, for packages of the agent layers, the packages of ours they must not
// import (a prefix ending in "/" covers a tree).
var neverImports = map[string][]string{
	// Definitions are data: they know nothing of the loop or the tools they name.
	"agentdef": {"agent", "tools", "session", "internal/"},
	// The Agent tool runs the agent loop; the front ends sit above it.
	"tools/agenttool": {"session", "internal/"},
	"agent":           {"tools", "session", "internal/"},
	// Session assembly sits below every front end: it takes plain options, so the CLI, the
	// chat, the SDK mode, mcp serve, a test or an embedder build the same session; cobra is
	// the CLI's alone (sdkHomes).
	"internal/app": {"internal/cli", "internal/tui", "internal/sdkproto", "mcp/serve"},
	// The auto-mode classifier sees a call through permission and the conversation through
	// llm only: it cannot reach a tool's result or run anything.
	"classifier": {"agent", "tool", "tools", "toolcall", "hooks", "session", "internal/"},
}

func TestAgentLayerDirections(t *testing.T) {
	pkgs := listPackages(t)
	for pkg, banned := range neverImports {
		p, ok := pkgs[module+"/"+pkg]
		if !ok {
			t.Errorf("package %s in neverImports does not exist", pkg)
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := ours(imp)
			if !ok {
				continue
			}
			for _, b := range banned {
				tree := strings.HasSuffix(b, "/") && strings.HasPrefix(irel, b)
				if tree || irel == b || strings.HasPrefix(irel, b+"/") {
					t.Errorf("%s imports %s; it must not import %s", pkg, imp, b)
				}
			}
		}
	}
}

func ours(p string) (string, bool) {
	if p == module {
		return "", true
	}
	return strings.CutPrefix(p, module+"/")
}

func isCore(rel string) bool {
	for _, c := range corePackages {
		if rel == c || strings.HasPrefix(rel, c+"/") {
			return true
		}
	}
	return false
}

func TestCoreImportsOnlyStdlibAndShell(t *testing.T) {
	pkgs := listPackages(t)
	checked := 0
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok || !isCore(rel) {
			continue
		}
		checked++
		for _, d := range p.Deps {
			dp := pkgs[d]
			if dp.Standard || strings.HasPrefix(d, "mvdan.cc/sh/v3/") || strings.HasPrefix(d, "golang.org/x/sys/") {
				continue
			}
			if drel, ok := ours(d); ok && (isCore(drel) || slices.Contains(coreLeaves, drel)) {
				continue
			}
			t.Errorf("core package %s depends on %s", rel, d)
		}
	}
	if checked < 2 {
		t.Fatalf("found only %d core packages; is the module list right?", checked)
	}
}

func TestSDKsStayInAdapters(t *testing.T) {
	pkgs := listPackages(t)
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			for sdk, homes := range sdkHomes {
				if !strings.HasPrefix(imp, sdk) {
					continue
				}
				allowed := false
				for _, h := range homes {
					if rel == h || strings.HasPrefix(rel, h+"/") {
						allowed = true
					}
				}
				if !allowed {
					t.Errorf("%s imports %s; only %v may", rel, imp, homes)
				}
			}
		}
	}
}

func TestNothingImportsTheCLI(t *testing.T) {
	pkgs := listPackages(t)
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok || rel == "cmd/reins" || strings.HasPrefix(rel, "internal/cli") {
			continue
		}
		for _, imp := range p.Imports {
			if irel, ok := ours(imp); ok && (strings.HasPrefix(irel, "internal/cli") || strings.HasPrefix(irel, "cmd/")) {
				t.Errorf("%s imports %s: the CLI sits on top and nothing imports it", rel, imp)
			}
		}
	}
}

func TestLibraryDoesNotImportTheAgentLayers(t *testing.T) {
	lower := []string{"permission", "pathrule", "bashrules", "settings", "tool", "llm"}
	upper := []string{"agent", "tools", "session", "internal/"}
	pkgs := listPackages(t)
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok {
			continue
		}
		isLower := false
		for _, l := range lower {
			if rel == l {
				isLower = true
			}
		}
		if !isLower {
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := ours(imp)
			if !ok {
				continue
			}
			for _, u := range upper {
				if irel == u || strings.HasPrefix(irel, u+"/") || (strings.HasSuffix(u, "/") && strings.HasPrefix(irel, u)) {
					t.Errorf("%s imports %s: lower layers must not depend on upper ones", rel, imp)
				}
			}
		}
	}
}

// allowedImports lists, for packages with a narrow contract, every package of ours they may
// import directly (architecture-next.md); an entry ending in "/" covers a tree. The MCP client
// and server adapt the go-sdk to the tool contract and the permission engine and know nothing
// of the agent loop, the CLI or a UI.
var allowedImports = map[string][]string{
	"mcp/client": {"tool", "permission", "boundedfile", "tracecontext"},
	"mcp/serve":  {"tool", "tools", "tools/", "permission", "toolcall"},
	// The one path of a call: every front end runs calls through it, and it knows only the
	// tool contract, the engine and the hooks it runs — never a front end or the agent loop.
	"toolcall":         {"tool", "permission", "hooks"},
	"tools/toolsearch": {"tool"},
	// Host canonicalisation: the standard library, golang.org/x/net/idna and hostform.
	"tools/web/hostcanon": {"hostform"},
	// A front-end adapter speaks a wire protocol over the agent's events and the permission
	// engine, and never reaches into another front end.
	"internal/sdkproto": {"agent", "permission", "session", "llm", "tool", "hooks"},
	// Checkpoints keep files and put them back; the agent and the front ends call them, never
	// the reverse. The capture reads a call through the pipeline's contract and the Bash
	// analysis.
	"checkpoint":         {},
	"checkpoint/capture": {"checkpoint", "toolcall", "bashrules", "permission"},
	// The Markdown renderer turns text into lines and knows nothing of the UI around it.
	"internal/tui/markdown": {},
	// The damage count's git view runs git for bashrules, which may not run programs itself.
	"bashrules/gitcli": {"bashrules"},
	// The command line's reading sits below the verdict stages: it parses and walks a line into
	// its commands, asking only the knowledge base what programs do (the checker adds the rest
	// through hooks), so no stage's rules or paths reach the walk.
	"bashrules/cmdline": {"bashrules/knowledge"},
	// Replay reads what was recorded and asks the engine again: it runs nothing (no toolcall,
	// no hooks, no agent) and reaches no front end.
	"replay": {"audit", "boundedfile", "llm", "permission", "session", "tool"},
	// Skills are data: files read and rules produced, applied by the session.
	"skills": {"permission", "frontmatter", "boundedfile"},
	// A plugin is folders of configuration: it exposes its parts to the loaders of each kind
	// and knows no session, tool or front end.
	"plugins": {"agentdef", "boundedfile", "mcp/client", "settings", "skills"},
	// The Skill tool reads skills and is decided by the engine; it knows no session.
	"tools/skilltool": {"tool", "permission", "skills", "tools/internal/schemax"},
}

func TestNarrowPackagesImportOnlyTheirContracts(t *testing.T) {
	pkgs := listPackages(t)
	for pkg, allowed := range allowedImports {
		p, ok := pkgs[module+"/"+pkg]
		if !ok {
			t.Errorf("package %s does not exist: drop its entry", pkg)
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := ours(imp)
			if !ok {
				continue
			}
			if !slices.ContainsFunc(allowed, func(a string) bool {
				return irel == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(irel, a))
			}) {
				t.Errorf("%s imports %s; it may import only %v of ours", pkg, irel, allowed)
			}
		}
	}
}

// ownImports lists, for packages whose place is fixed by the architecture, the only packages of
// ours they may import. They import nothing outside the standard library either.
var ownImports = map[string][]string{
	// Hooks feed the permission engine and are called by the agent, never the reverse.
	"hooks": {"permission", "internal/procgroup", "tracecontext"},
	// The trace context a process inherits (TRACEPARENT): two strings, known to the packages
	// that start processes without their knowing OpenTelemetry.
	"tracecontext": {},
	// Process groups are ended one way, by whoever started them.
	"internal/procgroup": {},
	// The watchdog runs as its own process beside reins and must stay small and obvious.
	"internal/procguard": {"internal/procgroup"},
	// The core reads its files through the bounded reader, so it is a leaf like the core.
	"boundedfile": {},
	// Advisory locks between Reins processes, for the core (settings) and the tools alike.
	"filelock": {},
	// Hosts in one form for the core and the web tool alike.
	"hostform": {},
	// A folder's repository, read from its .git files for the core (trust, protected paths).
	"worktree/gitdir": {"boundedfile"},
	// Worktrees are git runs and files: the session assembly uses them, never the reverse.
	"worktree": {"worktree/gitdir", "boundedfile", "pathrule", "internal/procgroup"},
	// Memory files are text for the prompt: found and read through the bounded reader, never
	// knowing the agent that shows them (what is a secret comes in as a function).
	"memory": {"boundedfile"},
	// Slash commands are text and the rules they bring: read through the shared front-matter
	// reader, expanded through a Host the front end supplies, so the package runs nothing
	// itself and knows neither the tools nor the agent.
	"commands": {"boundedfile", "frontmatter", "permission"},
	// The SlashCommand tool expands through the Expander the session gives it.
	"tools/slashcommand": {"commands", "permission", "tool"},
	// The audit log is a file format with a chain: it knows no event, tool or engine (the
	// session assembly turns the agent's events into its entries); boundedfile names the
	// file types it refuses.
	"audit": {"boundedfile"},
	// The policy bundle is bytes, a signature and a cache: it returns a verified document and
	// settings reads it like a managed file.
	"settings/policy": {},
	// What programs do is data a reviewer reads: the knowledge base knows nothing of rules,
	// the engine or the shell parser (bashrules asks it); it only records that it was built.
	"bashrules/knowledge": {"built"},
	// The record of what was built on first use is a leaf every layer may mark.
	"built": {},
}

func TestOwnImports(t *testing.T) {
	pkgs := listPackages(t)
	for pkg, allowed := range ownImports {
		p, ok := pkgs[module+"/"+pkg]
		if !ok {
			t.Errorf("package %s does not exist; drop its entry", pkg)
			continue
		}
		for _, imp := range p.Imports {
			if pkgs[imp].Standard {
				continue
			}
			irel, mine := ours(imp)
			if !mine {
				t.Errorf("%s imports %s: only the standard library and %v are allowed", pkg, imp, allowed)
				continue
			}
			if !slices.Contains(allowed, irel) {
				t.Errorf("%s imports %s; it may import only %v of ours", pkg, imp, allowed)
			}
		}
	}
}

// TestSandboxImportsOnlyItself keeps the sandbox a leaf: it enforces the paths and hosts it is
// given and knows nothing of the permission engine, the settings or the tools (the CLI hands
// it the settings). Outside the standard library it may use only its own packages and
// x/sys/unix with x/net/bpf (Landlock's system calls and the seccomp filter).
func TestSandboxImportsOnlyItself(t *testing.T) {
	pkgs := listPackages(t)
	checked := 0
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok || (rel != "sandbox" && !strings.HasPrefix(rel, "sandbox/")) {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if pkgs[imp].Standard || imp == "golang.org/x/sys/unix" || imp == "golang.org/x/net/bpf" {
				continue
			}
			if irel, ok := ours(imp); ok && (irel == "sandbox" || strings.HasPrefix(irel, "sandbox/")) {
				continue
			}
			t.Errorf("%s imports %s: the sandbox may import only the standard library, x/sys/unix, x/net/bpf and itself", rel, imp)
		}
	}
	if checked < 4 {
		t.Fatalf("found only %d sandbox packages", checked)
	}
}

// TestSandboxHelpersStayLight keeps sandbox/confine, whose init runs the helpers the backends
// re-execute reins as, on the imports that Go initialises first: a package initialises once
// its imports have, so with anything more the helpers would wait for most of the binary's
// packages before every sandboxed command (bench/sandbox.sh).
func TestSandboxHelpersStayLight(t *testing.T) {
	p, ok := listPackages(t)[module+"/sandbox/confine"]
	if !ok {
		t.Fatal("no sandbox/confine package")
	}
	for _, imp := range p.Imports {
		if imp != "errors" && imp != "syscall" && imp != "unsafe" {
			t.Errorf("sandbox/confine imports %s: its init runs the helpers before the rest of reins only while it imports nothing but errors, syscall and unsafe", imp)
		}
	}
}

// The interactive mode is a front end like -p: only the CLI chooses it, so nothing else may
// depend on it (and its Bubble Tea types cannot leak, see sdkHomes).
func TestOnlyTheCLIImportsTheTUI(t *testing.T) {
	pkgs := listPackages(t)
	found := false
	for path, p := range pkgs {
		rel, ok := ours(path)
		if !ok {
			continue
		}
		if rel == "internal/tui" {
			found = true
		}
		if strings.HasPrefix(rel, "internal/cli") || strings.HasPrefix(rel, "internal/tui") {
			continue
		}
		for _, imp := range p.Imports {
			if irel, ok := ours(imp); ok && strings.HasPrefix(irel, "internal/tui") {
				t.Errorf("%s imports %s: only internal/cli may", rel, imp)
			}
		}
	}
	if !found {
		t.Fatal("internal/tui is not in the module; is the package list right?")
	}
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

// covers reports whether the notInBinary entry covers pkg.
func covers(entry, pkg string) bool {
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
			if covers(entry, d) {
				t.Errorf("reins links %s: %s", d, why)
			}
		}
	}
	// Not only the binary's packages: a package outside it today may be linked tomorrow.
	for path, p := range pkgs {
		for _, imp := range p.Imports {
			for entry, why := range notInBinary {
				if covers(entry, imp) {
					t.Errorf("%s imports %s outside its tests: %s", path, imp, why)
				}
			}
		}
	}
}
