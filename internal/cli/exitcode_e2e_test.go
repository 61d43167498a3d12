package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestExitCodesOfEveryCommand runs the real binary over every command of the tree: an unknown
// subcommand of each group, an unknown flag of each command, an extra argument where none is
// taken, and the invalid-input paths. Each must exit with the code docs/cli.md gives it.
func TestExitCodesOfEveryCommand(t *testing.T) {
	doc := docExitCodes(t)
	bin := reinsBinary(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		// No provider anywhere: nothing here may reach a model.
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "OLLAMA_HOST=127.0.0.1:1"}
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	type want struct {
		args []string
		code int
	}
	var cases []want
	walkCommands(NewCmdRoot(DefaultFactory()), func(c *cobra.Command, path []string) {
		cases = append(cases, want{append(slices.Clone(path), "--no-such-flag"), exitUsage})
		if c.HasSubCommands() {
			cases = append(cases, want{append(slices.Clone(path), "no-such-command"), exitUsage})
		}
	})
	cases = append(cases,
		want{[]string{"mcp", "lst"}, exitUsage},
		// An error in what internal/app was asked for is a usage error too.
		want{[]string{"-p", "--provider", "nope", "hi"}, exitUsage},
		want{[]string{"version", "extra"}, exitUsage},
		want{[]string{"tool", "run", "Nope", "--input", "{}"}, exitInvalidInput},
		want{[]string{"tool", "run", "Read", "--input", "{"}, exitInvalidInput},
		want{[]string{"permissions", "check", "--tool", "Nope"}, exitInvalidInput},
		want{[]string{"permissions", "check", "--tool", "Read", "--input", "{"}, exitInvalidInput},
	)
	for _, c := range cases {
		code, out := run(c.args...)
		if code != c.code {
			t.Errorf("reins %s: exit %d, want %d (%s): %s", strings.Join(c.args, " "), code, c.code, doc[c.code], out)
		}
	}
}

// walkCommands calls fn for every visible command of the tree with its arguments from the
// root.
func walkCommands(root *cobra.Command, fn func(c *cobra.Command, path []string)) {
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		fn(c, path)
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
	}
	walk(root, nil)
}

// docExitCodes reads the exit-code table of docs/cli.md and checks that it names the codes
// exitcode.go has, no more and no fewer.
func docExitCodes(t *testing.T) map[int]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "## Exit codes")
	if !ok {
		t.Fatal("docs/cli.md has no Exit codes section")
	}
	table, _, _ = strings.Cut(table, "\n#")
	row := regexp.MustCompile(`(?m)^\| (\d+) \| ([^|]+) \|`)
	doc := map[int]string{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		n, _ := strconv.Atoi(m[1])
		doc[n] = strings.TrimSpace(m[2])
	}
	codes := []int{exitOK, exitError, exitUsage, exitAsk, exitDenied, exitInvalidInput, exitToolError, exitMaxTurns, exitChanged, exitCancel}
	for _, c := range codes {
		if doc[c] == "" {
			t.Errorf("docs/cli.md's exit-code table has no row for %d", c)
		}
	}
	for c := range doc {
		if !slices.Contains(codes, c) {
			t.Errorf("docs/cli.md's exit-code table has %d, which exitcode.go does not", c)
		}
	}
	return doc
}
