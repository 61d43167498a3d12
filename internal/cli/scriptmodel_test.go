package cli

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// modelKey holds a script's fake model servers by name in its Env.Values.
type modelKey struct{}

// cmdFakeModel is the scripts' fake model API, llmtest's server over HTTP:
//
//	fake-model serve [-openai] [-name N] turns   start a server playing the file's turns
//	fake-model results [-name N] i               print the tool results of request i
//	fake-model request [-name N] i               print the body of request i
//	fake-model served [-name N] n                check that n turns were played
//
// serve points reins at the server (ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, or the OPENAI_
// ones and REINS_MODEL), and sets $MODEL_URL (or $<N>_URL) for a settings file to name. The
// server's name defaults to "model". Requests count from 0, as llmtest's Requests do; a
// negative i counts from the end. The turns file's format is parseTurns'.
func cmdFakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: fake-model serve|results|request|served ...")
	}
	fs := flag.NewFlagSet("fake-model "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("name", "model", "the server's name")
	openai := fs.Bool("openai", false, "speak OpenAI Chat Completions")
	rest := args[1:]
	var arg string
	if n := len(rest); n > 0 {
		// The last argument is the positional one, a negative request number included,
		// which the flag package would take for a flag.
		arg, rest = rest[n-1], rest[:n-1]
	}
	if err := fs.Parse(rest); err != nil || fs.NArg() != 0 || arg == "" || strings.HasPrefix(arg, "-") && args[0] == "serve" {
		ts.Fatalf("fake-model %s: bad arguments %q", args[0], args[1:])
	}
	// The script's own map, made by scriptSetup; its commands run one at a time.
	servers := ts.Value(modelKey{}).(map[string]*llmtest.Server)
	if args[0] == "serve" {
		if neg {
			ts.Fatalf("unsupported: ! fake-model serve")
		}
		servers[*name] = serveModel(ts, arg, *name, *openai)
		return
	}
	srv := servers[*name]
	if srv == nil {
		ts.Fatalf("no fake model %q: fake-model serve it first", *name)
	}
	switch args[0] {
	case "results", "request":
		reqs := srv.Requests()
		i, err := strconv.Atoi(arg)
		ts.Check(err)
		if i < 0 {
			i += len(reqs)
		}
		if i < 0 || i >= len(reqs) {
			ts.Fatalf("request %s of %d", arg, len(reqs))
		}
		if args[0] == "request" {
			fmt.Fprintf(ts.Stdout(), "%s\n", reqs[i].Body)
			return
		}
		results, err := reqs[i].ToolResults()
		ts.Check(err)
		writeResults(ts.Stdout(), results)
	case "served":
		n, err := strconv.Atoi(arg)
		ts.Check(err)
		if got := srv.Served(); (got == n) == neg {
			ts.Fatalf("the fake model played %d turns; want %s%d", got, map[bool]string{true: "not "}[neg], n)
		}
	default:
		ts.Fatalf("fake-model: unknown subcommand %q", args[0])
	}
}

func serveModel(ts *testscript.TestScript, file, name string, openai bool) *llmtest.Server {
	text, err := expandVars(ts, ts.ReadFile(file))
	if err != nil {
		ts.Fatalf("%s: %v", file, err)
	}
	main, sides, err := parseTurns(text)
	if err != nil {
		ts.Fatalf("%s:%v", file, err)
	}
	tb := ts.Value(tbKey{}).(testing.TB)
	var srv *llmtest.Server
	if openai {
		srv = llmtest.NewOpenAIServer(tb, main...)
	} else {
		srv = llmtest.NewAnthropicServer(tb, main...)
	}
	for _, s := range sides {
		srv.Side(s.match, s.turns...)
	}
	ts.Setenv(strings.ToUpper(name)+"_URL", srv.URL)
	if name != "model" {
		return srv
	}
	if openai {
		ts.Setenv("OPENAI_API_KEY", "test-key")
		ts.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
		ts.Setenv("REINS_MODEL", "test-model")
	} else {
		ts.Setenv("ANTHROPIC_API_KEY", "test-key")
		ts.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	}
	return srv
}

// writeResults prints tool results one to a line group: a header line
// `tool_result <id> error` (or `ok`), then the result's text.
func writeResults(w io.Writer, results []llm.Block) {
	for _, r := range results {
		state := "ok"
		if r.IsError {
			state = "error"
		}
		fmt.Fprintf(w, "tool_result %s %s\n", r.ToolUseID, state)
		for _, c := range r.Content {
			if c.Text != "" {
				fmt.Fprintf(w, "%s\n", strings.TrimSuffix(c.Text, "\n"))
			}
		}
	}
}

type sideTurns struct {
	match string
	turns []llmtest.Turn
}

// parseTurns reads a fake model's script. Turns are separated by blank lines; each line of a
// turn is a directive:
//
//	say TEXT               a text delta (TEXT may be a Go-quoted string, for spaces at its ends)
//	call NAME JSON         a tool call with that input
//	think TEXT             a thinking delta
//	stop REASON            the stop reason (end_turn, max_tokens, ...)
//	usage IN OUT           the turn's token usage
//	fail STATUS TYPE MSG   an API error instead of an answer
//	overloaded             the 529 overloaded_error
//	prompt-too-long        the 400 a prompt over the context window gets
//	stall                  hold the response open until the client goes away
//
// A line `side MATCH` starts a side script (llmtest's Server.Side): the turns after it, up to
// the next `side` line, answer the requests whose body holds MATCH. Lines starting with # are
// comments.
func parseTurns(text string) (main []llmtest.Turn, sides []sideTurns, err error) {
	var turn *llmtest.Turn
	add := func() {
		if turn == nil {
			return
		}
		if len(sides) > 0 {
			sides[len(sides)-1].turns = append(sides[len(sides)-1].turns, *turn)
		} else {
			main = append(main, *turn)
		}
		turn = nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			if line == "" {
				add()
			}
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		if word == "side" {
			add()
			sides = append(sides, sideTurns{match: unquote(rest)})
			continue
		}
		if turn == nil {
			turn = &llmtest.Turn{}
		}
		if err := turnLine(turn, word, strings.TrimSpace(rest)); err != nil {
			return nil, nil, fmt.Errorf("%d: %v", n, err)
		}
	}
	add()
	return main, sides, nil
}

func turnLine(turn *llmtest.Turn, word, rest string) error {
	switch word {
	case "say":
		turn.Text = append(turn.Text, unquote(rest))
	case "think":
		turn.Thinking = append(turn.Thinking, unquote(rest))
	case "call":
		name, input, _ := strings.Cut(rest, " ")
		if name == "" || input == "" {
			return fmt.Errorf("call wants a tool name and its JSON input")
		}
		if !json.Valid([]byte(input)) {
			return fmt.Errorf("call %s: the input is not JSON: %s", name, input)
		}
		turn.ToolCalls = append(turn.ToolCalls, llmtest.Call(name, strings.TrimSpace(input)))
	case "stop":
		turn.StopReason = llm.StopReason(rest)
	case "usage":
		if _, err := fmt.Sscan(rest, &turn.Usage.InputTokens, &turn.Usage.OutputTokens); err != nil {
			return fmt.Errorf("usage IN OUT: %v", err)
		}
	case "fail":
		f := strings.SplitN(rest, " ", 3)
		status, err := strconv.Atoi(f[0])
		if err != nil || len(f) < 3 {
			return fmt.Errorf("fail STATUS TYPE MESSAGE")
		}
		turn.Error = llmtest.Fail(status, f[1], f[2]).Error
	case "overloaded":
		turn.Error = llmtest.Overloaded().Error
	case "prompt-too-long":
		turn.Error = llmtest.PromptTooLong().Error
	case "stall":
		turn.Stall = true
	default:
		return fmt.Errorf("unknown directive %q", word)
	}
	return nil
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

func TestParseTurns(t *testing.T) {
	main, sides, err := parseTurns(`# a comment
say "Let me look. "
call Read {"file_path":"a.go"}

think hmm
say done
stop max_tokens
usage 7 3

side You are Explore
call Grep {"pattern":"x"}

say found

fail 529 overloaded_error busy now
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []llmtest.Turn{
		{Text: []string{"Let me look. "}, ToolCalls: []llmtest.ToolCall{llmtest.Call("Read", `{"file_path":"a.go"}`)}},
		{Thinking: []string{"hmm"}, Text: []string{"done"}, StopReason: llm.StopMaxTokens, Usage: llm.Usage{InputTokens: 7, OutputTokens: 3}},
	}
	if diff := cmp.Diff(want, main, cmpopts.IgnoreUnexported(llmtest.Turn{})); diff != "" {
		t.Errorf("main turns (-want +got):\n%s", diff)
	}
	if len(sides) != 1 || sides[0].match != "You are Explore" || len(sides[0].turns) != 3 ||
		sides[0].turns[2].Error == nil || sides[0].turns[2].Error.Status != 529 || sides[0].turns[2].Error.Message != "busy now" {
		t.Errorf("side scripts %+v", sides)
	}

	for _, bad := range []string{"call Read", "call Read {not json", "usage x", "fail 5xx t m", "shout hi"} {
		if _, _, err := parseTurns(bad); err == nil || !strings.HasPrefix(err.Error(), "1: ") {
			t.Errorf("parseTurns(%q) = %v, want an error at line 1", bad, err)
		}
	}
}
