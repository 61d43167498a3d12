package bash

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var bgRE = regexp.MustCompile(`^Command running in background with ID: (b[0-9a-f]{8})\. Output is being written to: (\S+\.output)$`)

func (f *fixture) startBackground(command string) (id, path string) {
	f.t.Helper()
	res := f.bash(map[string]any{"command": command, "run_in_background": true})
	m := bgRE.FindStringSubmatch(res.TextOf())
	if m == nil {
		f.t.Fatalf("background start: %q", res.TextOf())
	}
	if o := res.Output.(Output); o.BackgroundTaskID != m[1] || o.OutputFile != m[2] {
		f.t.Fatalf("output %+v", o)
	}
	return m[1], m[2]
}

func (f *fixture) taskOutput(input map[string]any) (string, error) {
	f.t.Helper()
	res, err := f.callTool(context.Background(), f.shell.TaskOutputTool(), input)
	return res.TextOf(), err
}

func TestBackgroundTask(t *testing.T) {
	f := newFixture(t, Options{})
	id, path := f.startBackground("echo started; sleep 0.5; echo done; exit 4")

	got, err := f.taskOutput(map[string]any{"task_id": id, "block": false})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "<retrieval_status>not_ready</retrieval_status>\n\n<task_id>"+id+"</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>running</status>\n\n<output>\n") {
		t.Fatalf("non-blocking: %q", got)
	}
	got, err = f.taskOutput(map[string]any{"task_id": id})
	if err != nil {
		t.Fatal(err)
	}
	want := "<retrieval_status>success</retrieval_status>\n\n<task_id>" + id + "</task_id>\n\n<task_type>local_bash</task_type>\n\n" +
		"<status>failed</status>\n\n<exit_code>4</exit_code>\n\n<output>\nstarted\ndone\n</output>"
	if got != want {
		t.Fatalf("blocking:\n%q\nwant\n%q", got, want)
	}
	if readFile(t, path) != "started\ndone\n" {
		t.Fatal("output file")
	}
	// Stopping a finished task is refused.
	_, err = f.callTool(context.Background(), f.shell.TaskStopTool(), map[string]any{"task_id": id})
	if err == nil || err.Error() != "Task "+id+" is not running (status: failed)" {
		t.Fatalf("stop finished: %v", err)
	}
}

func TestBackgroundTaskRunsInShellDir(t *testing.T) {
	f := newFixture(t, Options{})
	f.run("mkdir -p sub && cd sub")
	id, _ := f.startBackground("pwd; cd /")
	got, _ := f.taskOutput(map[string]any{"task_id": id})
	if !strings.Contains(got, "<status>completed</status>") || !strings.Contains(got, "<output>\n"+f.dir+"/sub\n</output>") {
		t.Fatalf("got %q", got)
	}
	if f.shell.Cwd() != f.dir+"/sub" {
		t.Fatal("a background cd moved the shell")
	}
}

func TestTaskOutputTimeout(t *testing.T) {
	f := newFixture(t, Options{})
	id, _ := f.startBackground("sleep 1000")
	start := time.Now()
	got, err := f.taskOutput(map[string]any{"task_id": id, "timeout": 200})
	if err != nil {
		t.Fatal(err)
	}
	// It waited at least the timeout; how much longer depends on the machine's load.
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Fatalf("returned after %v, before the 200ms timeout", took)
	}
	if !strings.HasPrefix(got, "<retrieval_status>timeout</retrieval_status>") || !strings.Contains(got, "<status>running</status>") || strings.Contains(got, "exit_code") {
		t.Fatalf("got %q", got)
	}
	// Cancelling the call ends the wait, not the task.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := f.callTool(ctx, f.shell.TaskOutputTool(), map[string]any{"task_id": id})
	if err != nil || !res.IsError {
		t.Fatalf("cancelled wait: %v %+v", err, res)
	}
	if status, _ := f.shell.task(id).state(); status != StatusRunning {
		t.Fatal("the task died with the wait")
	}
}

func TestTaskStop(t *testing.T) {
	for _, field := range []string{"task_id", "shell_id"} {
		t.Run(field, func(t *testing.T) {
			f := newFixture(t, Options{})
			id, _ := f.startBackground(treeCommand)
			var pids []int
			for deadline := time.Now().Add(5 * time.Second); len(pids) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				pids = pidsIn(t, readFile(t, f.shell.task(id).outPath))
			}
			if len(pids) != 2 {
				t.Fatalf("pids %v", pids)
			}
			res, err := f.callTool(context.Background(), f.shell.TaskStopTool(), map[string]any{field: id})
			if err != nil {
				t.Fatal(err)
			}
			if want := "Successfully stopped task: " + id + " (" + treeCommand + ")"; res.TextOf() != want {
				t.Fatalf("got %q", res.TextOf())
			}
			waitGone(t, pids)
			got, _ := f.taskOutput(map[string]any{"task_id": id})
			if !strings.Contains(got, "<status>killed</status>") || !strings.Contains(got, "<exit_code>143</exit_code>") {
				t.Fatalf("after stop: %q", got)
			}
		})
	}
}

func TestTaskToolErrors(t *testing.T) {
	f := newFixture(t, Options{})
	for _, tc := range []struct {
		tool  string
		input map[string]any
		want  string
	}{
		{"TaskOutput", map[string]any{"task_id": "nope"}, "No task found with ID: nope"},
		{"TaskStop", map[string]any{"task_id": "nope"}, "No task found with ID: nope"},
		{"TaskStop", map[string]any{"shell_id": "old"}, "No task found with ID: old"},
		{"TaskStop", map[string]any{}, "Missing required parameter: task_id"},
		{"TaskOutput", map[string]any{"task_id": "x", "timeout": 600001}, "InputValidationError: TaskOutput failed due to the following issue:\nThe parameter `timeout` must be at most 600000"},
	} {
		tl := f.shell.TaskOutputTool()
		if tc.tool == "TaskStop" {
			tl = f.shell.TaskStopTool()
		}
		_, err := f.callTool(context.Background(), tl, tc.input)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %v: got %v, want %q", tc.tool, tc.input, err, tc.want)
		}
	}
}

func TestTaskToolFlags(t *testing.T) {
	s := New(Options{})
	out, stop := s.TaskOutputTool(), s.TaskStopTool()
	if out.Name() != "TaskOutput" || strings.Join(out.Spec().Aliases, ",") != "AgentOutputTool,BashOutputTool" {
		t.Errorf("TaskOutput %s %v", out.Name(), out.Spec().Aliases)
	}
	if stop.Name() != "TaskStop" || strings.Join(stop.Spec().Aliases, ",") != "KillShell" {
		t.Errorf("TaskStop %s %v", stop.Name(), stop.Spec().Aliases)
	}
	if !out.Spec().Defer || !stop.Spec().Defer {
		t.Error("task tools are deferred")
	}
	if !strings.Contains(string(out.Spec().InputSchema), `"block":{"type":"boolean","description":"Whether to wait for completion","default":true}`) {
		t.Errorf("schema %s", out.Spec().InputSchema)
	}
	if len(s.Tools()) != 3 {
		t.Error("Tools")
	}
}

func TestCloseEndsBackgroundTasks(t *testing.T) {
	f := newFixture(t, Options{})
	var all []int
	for range 3 {
		id, _ := f.startBackground(treeCommand)
		var pids []int
		for deadline := time.Now().Add(5 * time.Second); len(pids) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			pids = pidsIn(t, readFile(t, f.shell.task(id).outPath))
		}
		if len(pids) != 2 {
			t.Fatalf("pids %v", pids)
		}
		all = append(all, pids...)
	}
	// A finished task whose child outlived it.
	id, _ := f.startBackground(`sleep 1000 >/dev/null 2>&1 & echo $!`)
	f.taskOutput(map[string]any{"task_id": id})
	all = append(all, pidsIn(t, readFile(t, f.shell.task(id).outPath))...)
	for _, p := range all {
		if !alive(p) {
			t.Fatalf("%d died early", p)
		}
	}
	if err := f.shell.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, all)
	if err := f.shell.Close(); err != nil {
		t.Fatal("second Close", err)
	}
	if _, err := f.callTool(context.Background(), f.shell.BashTool(), map[string]any{"command": "sleep 1", "run_in_background": true}); err != ErrClosed {
		t.Fatalf("background start after Close: %v", err)
	}
}

func TestCloseStopsRunningForegroundCommand(t *testing.T) {
	f := newFixture(t, Options{})
	done := make(chan string)
	go func() {
		res, _ := f.callTool(context.Background(), f.shell.BashTool(), map[string]any{"command": treeCommand})
		done <- res.Output.(Output).Stdout
	}()
	// Wait until the command has started its sleepers.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		outs, _ := filepath.Glob(filepath.Join(f.shell.opts.OutputDir, "*.output"))
		if len(outs) == 1 && len(pidsIn(t, readFile(t, outs[0]))) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
	var pids []int
	f.shell.Close()
	select {
	case out := <-done:
		pids = pidsIn(t, out)
	case <-time.After(5 * time.Second):
		t.Fatal("the command survived Close")
	}
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	waitGone(t, pids)
}
