package agenttool

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/workflow"
)

func builtin(name string) *agentdef.Definition {
	for _, d := range agentdef.Builtins() {
		if d.Name == name {
			return d
		}
	}
	panic(name)
}

// TestSubAgentEnvIsMarked: the tools a sub-agent calls see a sub-agent's Env
// (workflow.IsSubAgent), so that the main agent's own tools can refuse there; the parent's
// calls do not.
func TestSubAgentEnvIsMarked(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	var seen []bool
	h.pool = append(h.pool, tool.Build(tool.Def[struct{}]{
		Name: "Probe",
		CheckPermissions: func(context.Context, *permission.Context, struct{}) permission.Decision {
			return permission.Decision{Behavior: permission.Allow}
		},
		Call: func(_ context.Context, _ struct{}, env *tool.Env) (tool.Result, error) {
			seen = append(seen, workflow.IsSubAgent(env))
			return tool.TextResult("probed"), nil
		},
	}))
	h.parent.Tools = h.pool
	gp := key(builtin("general-purpose"))
	h.router.script(parentKey,
		use("Probe", `{}`),
		use("Agent", `{"description":"probe","prompt":"Probe it","subagent_type":"general-purpose"}`),
		say("done"))
	h.router.script(gp, use("Probe", `{}`), say("probed"))
	if res := h.run(t.Context(), "go"); res.Subtype != agent.SubtypeSuccess {
		t.Fatalf("subtype %s: %v", res.Subtype, res.Err)
	}
	if !slices.Equal(seen, []bool{false, true}) {
		t.Errorf("IsSubAgent in the parent's and the sub-agent's call: %v, want [false true]", seen)
	}
}

func TestExploreRunsItsToolsAndReturnsItsText(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	explore := key(builtin("Explore"))
	h.router.script(parentKey,
		use("Agent", `{"description":"find the TODO","prompt":"Where is the TODO?","subagent_type":"Explore"}`),
		say("done"))
	h.router.script(explore,
		use("Grep", `{"pattern":"TODO","path":"`+h.dir+`","output_mode":"content","-n":true}`),
		use("Read", `{"file_path":"`+filepath.Join(h.dir, "main.go")+`"}`),
		say("The TODO is in main.go line 3."))

	var mu sync.Mutex
	var forwarded []agent.Event
	unsub := h.bus.Subscribe(func(ev agent.Event) {
		if ev.ParentToolUseID != "" {
			mu.Lock()
			forwarded = append(forwarded, ev)
			mu.Unlock()
		}
	})
	res := h.run(t.Context(), "find it")
	unsub()
	if res.Subtype != agent.SubtypeSuccess {
		t.Fatalf("subtype %s: %v", res.Subtype, res.Err)
	}

	sub := h.router.requests(explore)
	if len(sub) != 3 {
		t.Fatalf("sub-agent made %d requests, want 3", len(sub))
	}
	names := toolNames(sub[0].Tools)
	for _, forbidden := range []string{"Agent", "Edit", "Write", "NotebookEdit", "AskUserQuestion", "ExitPlanMode", "TaskOutput"} {
		if slices.Contains(names, forbidden) {
			t.Errorf("Explore was offered %s (tools %v)", forbidden, names)
		}
	}
	if !slices.Contains(names, "Grep") || !slices.Contains(names, "Read") {
		t.Errorf("Explore lacks Grep or Read: %v", names)
	}
	grep := textOf(lastResults(sub[1])[0])
	if !strings.Contains(grep, "TODO: say hello") {
		t.Errorf("Grep result = %q", grep)
	}
	read := lastResults(sub[2])[0]
	if read.IsError || !strings.Contains(textOf(read), "func main") {
		t.Errorf("Read result = %q", textOf(read))
	}

	final := lastResults(h.router.requests(parentKey)[1])[0]
	got := textOf(final)
	if final.IsError || !strings.HasPrefix(got, "The TODO is in main.go line 3.") || !strings.Contains(got, "tool_uses: 2") {
		t.Errorf("Agent result = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	var assistants int
	for _, ev := range forwarded {
		if ev.Type == agent.EventAssistant {
			assistants++
		}
		if ev.Type == agent.EventResult {
			t.Error("the sub-agent's result event reached the parent's bus")
		}
	}
	if assistants != 3 {
		t.Errorf("forwarded %d assistant events with a parent id, want 3", assistants)
	}
}

func TestCustomAgentCannotCallToolsItWasNotGiven(t *testing.T) {
	reviewer := &agentdef.Definition{Name: "reviewer", Description: "reviews", Tools: []string{"Read", "Grep"}, Prompt: "REVIEWER"}
	h := newHarness(t, harnessOpts{defs: []*agentdef.Definition{reviewer}, mode: permission.ModeBypass, bypassAvailable: true})
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p","subagent_type":"reviewer"}`), say("ok"))
	h.router.script("REVIEWER", use("Bash", `{"command":"touch pwned"}`), say("could not"))
	h.run(t.Context(), "go")

	sub := h.router.requests("REVIEWER")
	if got := toolNames(sub[0].Tools); !slices.Equal(got, []string{"Grep", "Read"}) {
		t.Errorf("reviewer tools = %v, want [Grep Read]", got)
	}
	res := lastResults(sub[1])[0]
	if !res.IsError || !strings.Contains(textOf(res), "No such tool available: Bash") {
		t.Errorf("Bash call answered %q", textOf(res))
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pwned")); err == nil {
		t.Error("the sub-agent ran a tool it was not given")
	}
}

func TestAgentTypeDenyRule(t *testing.T) {
	h := newHarness(t, harnessOpts{rules: []permission.Rule{rule(permission.Deny, "Agent(Explore)")}})
	p, err := h.pool[0].Prompt(t.Context())
	if h.pool[0].Name() != "Agent" || err != nil {
		t.Fatalf("first tool %s, %v", h.pool[0].Name(), err)
	}
	if strings.Contains(p, "- Explore:") || !strings.Contains(p, "- Plan:") {
		t.Errorf("a denied type is offered, or an allowed one is not:\n%s", p)
	}
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p","subagent_type":"Explore"}`), say("ok"))
	res := h.run(t.Context(), "go")
	got := textOf(lastResults(h.router.requests(parentKey)[1])[0])
	want := "Agent type 'Explore' has been denied by permission rule 'Agent(Explore)' from session."
	if got != want {
		t.Errorf("result %q, want %q", got, want)
	}
	if len(res.PermissionDenials) != 1 {
		t.Errorf("denials = %v", res.PermissionDenials)
	}
	if len(h.router.requests(key(builtin("Explore")))) != 0 {
		t.Error("the denied sub-agent ran")
	}
}

func TestLegacyTaskNameAndRules(t *testing.T) {
	// "Task(Plan)" is the legacy spelling of "Agent(Plan)"; a call by the legacy name works.
	h := newHarness(t, harnessOpts{rules: []permission.Rule{rule(permission.Ask, "Task(Plan)")}})
	h.router.script(parentKey,
		use("Task", `{"description":"d","prompt":"p","subagent_type":"Plan"}`, "Task", `{"description":"d","prompt":"p","subagent_type":"nope"}`),
		say("ok"))
	h.run(t.Context(), "go")
	rs := lastResults(h.router.requests(parentKey)[1])
	if !rs[0].IsError || !strings.Contains(textOf(rs[0]), "requested permissions") {
		t.Errorf("ask rule on Task(Plan) headless: %q", textOf(rs[0]))
	}
	if !strings.Contains(textOf(rs[1]), "Agent type 'nope' not found. Available agents: Explore, Plan, general-purpose") {
		t.Errorf("unknown type: %q", textOf(rs[1]))
	}
}

// grantingAsker answers every ask with allow and a session rule for the call's tool.
type grantingAsker struct {
	mu    sync.Mutex
	asked []string
}

func (g *grantingAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	g.mu.Lock()
	g.asked = append(g.asked, req.Tool)
	g.mu.Unlock()
	return permission.Decision{Behavior: permission.Allow}, nil
}

func TestForegroundAsksGoToTheParentsAskerAndGrantsReachTheParent(t *testing.T) {
	asker := &grantingAsker{}
	h := newHarness(t, harnessOpts{asker: asker})
	gp := key(builtin("general-purpose"))
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"write it"}`), say("ok"))
	h.router.script(gp, use("Write", `{"file_path":"`+filepath.Join(h.dir, "new.txt")+`","content":"hi"}`), say("written"))
	h.run(t.Context(), "go")
	if !slices.Contains(asker.asked, "Write") {
		t.Errorf("the parent's asker was not asked: %v", asker.asked)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, "new.txt")); err != nil || string(b) != "hi" {
		t.Errorf("file = %q, %v", b, err)
	}

	// A session grant made through the sub-agent's permissions is the parent's.
	child := h.perms.Derive(func(pc *permission.Context) *permission.Context { return pc.WithMode(permission.ModeDefault) })
	err := child.Update(t.Context(), permission.Update{Type: permission.AddRules, Destination: permission.SourceSession,
		Behavior: permission.Allow, Rules: []permission.RuleValue{permission.ParseRule("Bash(make:*)")}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range h.perms.Context().Rules() {
		if r.Value.String() == "Bash(make:*)" {
			found = true
		}
	}
	if !found {
		t.Error("a grant made in the sub-agent is not visible to the parent")
	}
}

func TestBackgroundAgentTaskOutputAndNotice(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	gp := key(builtin("general-purpose"))
	release := make(chan struct{})
	h.router.script(parentKey,
		use("Agent", `{"description":"count","prompt":"count files","run_in_background":true}`),
		func(req *llm.Request) *llm.Response {
			// The launch returned at once, while the sub-agent still waits.
			var out struct{ AgentID string }
			text := textOf(lastResults(req)[0])
			if !strings.Contains(text, "Async agent launched successfully") {
				t.Errorf("launch result = %q", text)
			}
			line := text[strings.Index(text, "agentId: ")+len("agentId: "):]
			out.AgentID, _, _ = strings.Cut(line, " ")
			close(release)
			return use("TaskOutput", `{"task_id":"`+out.AgentID+`","timeout":20000}`)(req)
		},
		func(req *llm.Request) *llm.Response {
			text := textOf(lastResults(req)[0])
			if !strings.Contains(text, "<status>completed</status>") || !strings.Contains(text, "There are 1 files.") ||
				!strings.Contains(text, "<task_type>local_agent</task_type>") {
				t.Errorf("TaskOutput = %q", text)
			}
			// The completion notice reaches the model in the same request.
			last := req.Messages[len(req.Messages)-1]
			var notice string
			for _, b := range last.Content {
				if b.Type == llm.BlockText {
					notice += b.Text
				}
			}
			if !strings.Contains(notice, "<task-notification>") || !strings.Contains(notice, "<status>completed</status>") {
				t.Errorf("no completion notice in %+v", last.Content)
			}
			return say("all done")(req)
		})
	h.router.script(gp,
		func(req *llm.Request) *llm.Response {
			<-release
			names := toolNames(req.Tools)
			if slices.Contains(names, "TaskOutput") || slices.Contains(names, "Agent") {
				t.Errorf("background agent offered %v", names)
			}
			return use("Glob", `{"pattern":"*.go"}`)(req)
		},
		say("There are 1 files."))
	res := h.run(t.Context(), "go")
	if res.Subtype != agent.SubtypeSuccess || res.Text != "all done" {
		t.Fatalf("result %s %q %v", res.Subtype, res.Text, res.Err)
	}
}

func TestBackgroundAgentAsksAreDenied(t *testing.T) {
	asker := &grantingAsker{}
	h := newHarness(t, harnessOpts{asker: asker})
	gp := key(builtin("general-purpose"))
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p","run_in_background":true}`), say("ok"))
	h.router.script(gp, use("Bash", `{"command":"touch x"}`), say("denied"))
	h.run(t.Context(), "go")
	if err := h.manager.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	res := lastResults(h.router.requests(gp)[1])[0]
	if !res.IsError || !strings.Contains(textOf(res), "Permission to use Bash has been denied") {
		t.Errorf("background ask answered %q", textOf(res))
	}
	if len(asker.asked) != 0 {
		t.Errorf("a background agent reached the person: %v", asker.asked)
	}
}

func TestAbortStopsTheSubAgentAndItsProcesses(t *testing.T) {
	// The shell's spawner goroutine lives as long as the process by design (its locked thread
	// carries the children's parent-death signal); anything else left behind is a leak.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), goleak.IgnoreTopFunction("github.com/reinsdev/reins/tools/bash.startGuarded.func1.1"))
	marker := "reins-subagent-abort-" + strings.ReplaceAll(t.Name(), "/", "-")
	h := newHarness(t, harnessOpts{rules: []permission.Rule{rule(permission.Allow, "Bash")}})
	gp := key(builtin("general-purpose"))
	started := make(chan struct{})
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p"}`))
	h.router.script(gp, func(req *llm.Request) *llm.Response {
		close(started)
		return use("Bash", `{"command":"exec -a `+marker+` sleep 30"}`)(req)
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan *agent.Result)
	go func() {
		res, _ := h.parent.Run(ctx, nil, llm.UserText("go"))
		done <- res
	}()
	<-started
	// Wait until the sleep runs, then abort the parent's turn.
	deadline := time.Now().Add(20 * time.Second)
	for !processRunning(marker) {
		if time.Now().After(deadline) {
			t.Fatal("the sub-agent's command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case res := <-done:
		if res.Subtype != agent.SubtypeExecutionError {
			t.Errorf("subtype %s after abort", res.Subtype)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not return after abort")
	}
	if processRunning(marker) {
		t.Error("the sub-agent's process outlived the abort")
	}
	h.manager.Close()
}

func processRunning(marker string) bool {
	out, _ := exec.Command("pgrep", "-f", marker).Output()
	return len(strings.TrimSpace(string(out))) > 0
}

func TestSubAgentTranscript(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	var mu sync.Mutex
	recorded := map[string][]llm.Message{}
	h.pool[0] = New(Config{
		Definitions: h.defs, Provider: h.router, Model: "m", Permissions: h.perms, Engine: &permission.Engine{},
		Tools: func() []tool.Tool { return h.pool }, Files: tool.NewFileState(), Bus: h.bus,
		NewTranscript: func(id string) (Transcript, string, error) {
			return &memTranscript{id: id, mu: &mu, into: recorded}, "/t/" + id + ".jsonl", nil
		},
	})
	h.parent.Tools = h.pool
	gp := key(builtin("general-purpose"))
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"hello sub"}`), say("ok"))
	h.router.script(gp, say("hi parent"))
	h.run(t.Context(), "go")
	mu.Lock()
	defer mu.Unlock()
	if len(recorded) != 1 {
		t.Fatalf("transcripts: %v", recorded)
	}
	for id, msgs := range recorded {
		if len(msgs) != 2 || msgs[0].Text() != "hello sub" || msgs[1].Text() != "hi parent" {
			t.Errorf("transcript %s = %+v", id, msgs)
		}
		got := textOf(lastResults(h.router.requests(parentKey)[1])[0])
		if !strings.Contains(got, "agentId: "+id) {
			t.Errorf("result %q does not link agent %s", got, id)
		}
	}
}

type memTranscript struct {
	id   string
	mu   *sync.Mutex
	into map[string][]llm.Message
}

func (m *memTranscript) AppendMessage(msg llm.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.into[m.id] = append(m.into[m.id], msg)
	return nil
}
func (m *memTranscript) AppendPermissions(agent.SessionState) error { return nil }
func (m *memTranscript) Close() error                               { return nil }

func TestInputSchema(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(h.pool[0].Spec().InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	slices.Sort(s.Required)
	if !slices.Equal(s.Required, []string{"description", "prompt"}) {
		t.Errorf("required = %v", s.Required)
	}
	for _, p := range []string{"subagent_type", "model", "run_in_background"} {
		if _, ok := s.Properties[p]; !ok {
			t.Errorf("no %s property", p)
		}
	}
}

type fixedAsker permission.Decision

func (f fixedAsker) Ask(context.Context, permission.AskRequest) (permission.Decision, error) {
	return permission.Decision(f), nil
}

// A background sub-agent's asks reach only the PermissionRequest hooks: a hook's answer
// counts, anything else is the asyncAgent denial that says why no one was asked.
func TestAsyncAskerTakesOnlyHookAnswers(t *testing.T) {
	req := permission.AskRequest{Tool: "Bash"}
	hookAllow := permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonHook}}
	if d, _ := (asyncAsker{fixedAsker(hookAllow)}).Ask(t.Context(), req); d.Behavior != permission.Allow {
		t.Errorf("a hook's allow: %+v", d)
	}
	plainDeny := permission.Decision{Behavior: permission.Deny, Message: "no one answered"}
	d, _ := (asyncAsker{fixedAsker(plainDeny)}).Ask(t.Context(), req)
	if d.Behavior != permission.Deny || d.Reason == nil || d.Reason.Type != permission.ReasonAsyncAgent ||
		!strings.Contains(d.Message, "background agents cannot ask") {
		t.Errorf("an undecided ask: %+v", d)
	}
}

// Agent calls are concurrency-safe: two in one message run at the same time. Each sub-agent's
// first request waits until the other one has started; run one after the other, the first
// would wait in vain.
func TestAgentCallsRunInParallel(t *testing.T) {
	alpha := &agentdef.Definition{Name: "alpha", Description: "a", Prompt: "ALPHA"}
	beta := &agentdef.Definition{Name: "beta", Description: "b", Prompt: "BETA"}
	h := newHarness(t, harnessOpts{defs: []*agentdef.Definition{alpha, beta}})
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	meet := func(name string) reply {
		return func(req *llm.Request) *llm.Response {
			started.Done()
			select {
			case <-both:
			case <-time.After(20 * time.Second):
				t.Errorf("%s never ran beside the other sub-agent", name)
			}
			return say(name + " done")(req)
		}
	}
	h.router.script("ALPHA", meet("alpha"))
	h.router.script("BETA", meet("beta"))
	h.router.script(parentKey,
		use("Agent", `{"description":"a","prompt":"p","subagent_type":"alpha"}`, "Agent", `{"description":"b","prompt":"p","subagent_type":"beta"}`),
		say("ok"))
	h.run(t.Context(), "go")
	rs := lastResults(h.router.requests(parentKey)[1])
	if len(rs) != 2 || !strings.HasPrefix(textOf(rs[0]), "alpha done") || !strings.HasPrefix(textOf(rs[1]), "beta done") {
		t.Errorf("results %q %q", textOf(rs[0]), textOf(rs[1]))
	}
}

// The session's end stops a background sub-agent that is still running, with its processes.
func TestManagerCloseStopsBackgroundAgents(t *testing.T) {
	marker := "reins-bg-close-" + strings.ReplaceAll(t.Name(), "/", "-")
	h := newHarness(t, harnessOpts{rules: []permission.Rule{rule(permission.Allow, "Bash")}})
	gp := key(builtin("general-purpose"))
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p","run_in_background":true}`), say("launched"))
	h.router.script(gp, use("Bash", `{"command":"exec -a `+marker+` sleep 30"}`))
	h.run(t.Context(), "go")
	deadline := time.Now().Add(20 * time.Second)
	for !processRunning(marker) {
		if time.Now().After(deadline) {
			t.Fatal("the background agent's command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { h.manager.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return")
	}
	if processRunning(marker) {
		t.Error("the background agent's process outlived the session")
	}
	if err := h.manager.Wait(t.Context()); err != nil {
		t.Error(err)
	}
}
