//go:build unix

package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/tool"
)

// TestAbort cancels a run while a call runs a child process, a parallel batch is in flight
// and more calls wait: every tool_use still gets a result, and nothing — no goroutine (the
// package's TestMain checks with goleak), no child process — is left behind.
func TestAbort(t *testing.T) {
	pidFile := t.TempDir() + "/pid"
	started := make(chan struct{})
	var startOnce sync.Once
	proc := tool.Build(tool.Def[echoIn]{Name: "Proc", CheckPermissions: allow,
		ConcurrencySafe: func(echoIn) bool { return true },
		Call: func(ctx context.Context, _ echoIn, _ *tool.Env) (tool.Result, error) {
			cmd := exec.CommandContext(ctx, "sleep", "60")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			if err := cmd.Start(); err != nil {
				return tool.Result{}, err
			}
			os.WriteFile(pidFile, fmt.Appendf(nil, "%d", cmd.Process.Pid), 0o600)
			startOnce.Do(func() { close(started) })
			err := cmd.Wait()
			return tool.Result{}, fmt.Errorf("sleep: %w", err)
		}})
	tr := &tracker{}
	p := llmtest.NewScript(use(
		"Proc", `{}`, "Slow", `{"id":"a"}`, "Slow", `{"id":"b"}`,
		"Unsafe", `{"id":"later"}`))
	a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t), MaxConcurrency: 2,
		Tools: []tool.Tool{proc, sleeper("Slow", true, time.Minute, tr), sleeper("Unsafe", false, time.Minute, tr)}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	res, err := a.Run(ctx, nil, llm.UserText("go"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	last := res.Messages[len(res.Messages)-1]
	want := []string{InterruptedMessage, InterruptedMessage, CancelMessage, CancelMessage}
	if len(last.Content) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(last.Content), len(want), last.Content)
	}
	for i, w := range want {
		if got := resultText(last.Content[i]); got != w || !last.Content[i].IsError {
			t.Errorf("result %d = %q, want %q", i, got, w)
		}
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("child process %d still exists (kill 0: %v)", pid, err)
	}
}
