package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/syntax"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/llm/llmtest"
)

// example is one `reins …` command line found in the help or the docs.
type example struct {
	where string // file:line, or the command whose help shows it
	line  string
}

// TestExamplesParse checks every `reins …` example of --help, README.md and docs/*.md: the
// command exists, its flags are accepted, its arguments are the ones the command takes, and a
// -p run has a prompt. Examples that touch only the project and the settings (permissions,
// tools, tool run, hooks, agents, sandbox status, version) and the headless runs (-p, against
// the scripted fake model) are also run, in a fresh project, and must not end in a usage
// error or a failure of reins.
func TestExamplesParse(t *testing.T) {
	examples := helpExamples()
	for _, path := range append([]string{"../../README.md"}, globDocs(t)...) {
		examples = append(examples, docExamples(t, path)...)
	}
	if len(examples) < 20 {
		t.Fatalf("found only %d examples; the extraction is broken", len(examples))
	}
	model := llmtest.NewAnthropicServer(t, llmtest.Say("done"))
	model.Repeat()
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": model.URL}
	ran, headless := 0, 0
	for _, ex := range examples {
		calls, err := reinsCalls(ex.line)
		if err != nil {
			t.Errorf("%s: %q does not parse as shell: %v", ex.where, ex.line, err)
			continue
		}
		for _, c := range calls {
			if err := checkArgs(c.args, c.piped); err != nil {
				t.Errorf("%s: %s: %v", ex.where, ex.line, err)
				continue
			}
			if runnableExample(c.args) {
				ran++
				if isHeadless(c.args) {
					headless++
				}
				_, stderr, code := runIn(t, env, c.args...)
				if code == cmdutil.ExitError && strings.Contains(stderr, "no saved session found") {
					// --continue in a fresh project: the example is right, there is no history.
					continue
				}
				if code == cmdutil.ExitUsage || code == cmdutil.ExitError {
					t.Errorf("%s: %s: exit %d: %s", ex.where, ex.line, code, stderr)
				}
			}
		}
	}
	if ran < 10 || headless < 2 {
		t.Errorf("ran only %d examples, %d of them headless runs", ran, headless)
	}
}

// TestExamplesParseCatchesAPromptTakenAsARule is the check's own test: the prompt after a
// variadic --allowedTools is taken for a rule, which the check must see.
func TestExamplesParseCatchesAPromptTakenAsARule(t *testing.T) {
	bad := []string{
		`reins -p --output-format stream-json --allowedTools "Bash(go test:*)" "make the tests pass"`,
		`reins -p --no-such-flag "x"`,
		`reins -p`,
		`reins tools lst`,
		`reins version extra`,
	}
	for _, line := range bad {
		calls, err := reinsCalls(line)
		if err != nil || len(calls) != 1 {
			t.Fatalf("%s: %v, %d calls", line, err, len(calls))
		}
		if err := checkArgs(calls[0].args, calls[0].piped); err == nil {
			t.Errorf("%s: accepted", line)
		}
	}
	calls, _ := reinsCalls(`git diff | reins -p`)
	if err := checkArgs(calls[0].args, calls[0].piped); err != nil {
		t.Errorf("a piped prompt: %v", err)
	}
}

func globDocs(t *testing.T) []string {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs: %v (%d files)", err, len(docs))
	}
	return docs
}

// helpExamples are the Example sections of every command, as --help prints them.
func helpExamples() []example {
	var out []example
	walkCommands(NewCmdRoot(DefaultFactory()), func(c *cobra.Command, _ []string) {
		for line := range strings.SplitSeq(c.Example, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, example{where: c.CommandPath() + " --help", line: line})
			}
		}
	})
	return out
}

var fence = regexp.MustCompile("^```(sh|bash|console)?$")

// docExamples are the lines of path's shell code blocks (and blocks without a language) that
// run reins: they start with it, after variable assignments, or pipe into it. A synopsis line
// (optional parts in brackets) is not an example.
func docExamples(t *testing.T, path string) []example {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	in, shell := false, false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			in, shell = !in, fence.MatchString(line)
			continue
		}
		if !in || !shell || strings.Contains(line, " [-") {
			continue
		}
		if runsReins(line) {
			out = append(out, example{where: filepath.Base(path) + ":" + itoa(i+1), line: line})
		}
	}
	return out
}

var startsReins = regexp.MustCompile(`^\s*([A-Z_]+=\S*\s+)*reins(\s|$)|\|\s*reins(\s|$)`)

func runsReins(line string) bool { return startsReins.MatchString(line) }

func itoa(n int) string {
	var b []byte
	for ; n > 0 || len(b) == 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// reinsCall is one run of reins in an example: its arguments, and whether its standard input
// is a pipe.
type reinsCall struct {
	args  []string
	piped bool
}

// reinsCalls parses line as shell and returns its calls of reins with their arguments, quotes
// removed; an expansion stands for the word "x".
func reinsCalls(line string) ([]reinsCall, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, err
	}
	piped := map[*syntax.CallExpr]bool{}
	var calls []*syntax.CallExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if c, ok := n.Y.Cmd.(*syntax.CallExpr); ok && (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) {
				piped[c] = true
			}
		case *syntax.CallExpr:
			calls = append(calls, n)
		}
		return true
	})
	var out []reinsCall
	for _, c := range calls {
		if len(c.Args) == 0 || wordText(c.Args[0]) != "reins" {
			continue
		}
		rc := reinsCall{piped: piped[c], args: []string{}}
		for _, w := range c.Args[1:] {
			rc.args = append(rc.args, wordText(w))
		}
		out = append(out, rc)
	}
	return out, nil
}

func wordText(w *syntax.Word) string {
	var b strings.Builder
	var part func(p syntax.WordPart)
	part = func(p syntax.WordPart) {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				part(q)
			}
		default:
			b.WriteString("x")
		}
	}
	for _, p := range w.Parts {
		part(p)
	}
	return b.String()
}

// checkArgs does what Run does up to the command's RunE: the tool lists, the command, its
// flags, its arguments; for the root command with -p, a prompt from the arguments or a pipe.
func checkArgs(args []string, piped bool) error {
	root := NewCmdRoot(&cmdutil.Factory{Getenv: func(string) string { return "" }, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	args, err := expandToolLists(root, args)
	if err != nil {
		return err
	}
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	positional := cmd.Flags().Args()
	if cmd.Args != nil {
		if err := cmd.Args(cmd, positional); err != nil {
			return err
		}
	}
	if cmd == root {
		if p, _ := cmd.Flags().GetBool("print"); p && len(positional) == 0 && !piped {
			return errors.New("-p without a prompt: no arguments and nothing piped in")
		}
	}
	return nil
}

// runnableExample says whether an example only reads or decides in the project, so a test can
// run it in a fresh one.
func runnableExample(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if isHeadless(args) {
		return true
	}
	switch args[0] {
	case "permissions", "tools", "tool", "hooks", "agents", "version", "--version":
		return true
	case "sandbox":
		return len(args) > 1 && args[1] == "status"
	}
	return false
}

// isHeadless says whether an example is a -p run, which the fake model answers.
func isHeadless(args []string) bool {
	return slices.Contains(args, "-p") || slices.Contains(args, "--print")
}

// TestReadmeGuides: README.md links every page of docs/, tells where `go install` puts the
// binary, and names the features a person looks for first (issue 41, chat item 8).
func TestReadmeGuides(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, p := range globDocs(t) {
		if link := "docs/" + filepath.Base(p); !strings.Contains(readme, "("+link+")") {
			t.Errorf("README.md does not link %s", link)
		}
	}
	for _, want := range []string{"$(go env GOPATH)/bin", "PATH", "compaction", "/rewind", "CLAUDE.md", "slash commands", "skills", "plugins", "CPU-minutes"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}
