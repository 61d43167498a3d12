package app_test

import (
	"context"
	"fmt"
	"os"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// An embedder builds a session from plain options, chooses who answers asks, runs a turn and
// closes the session. (Not run: it needs a model API.)
func ExampleNew() {
	ctx := context.Background()
	a, err := app.New(ctx, app.Options{
		Cwd:      "/path/to/project",
		Settings: app.SettingsOptions{Flags: settings.Flags{Mode: "acceptEdits", AllowedTools: []string{"Bash(go test:*)"}}},
		Report:   app.Reporter{Warn: func(m string) { fmt.Fprintln(os.Stderr, "warning:", m) }},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer a.Close()
	// Asks the PermissionRequest hooks do not answer are refused here; a front end would ask a
	// person.
	a.Agent.Asker = a.WithHooks(refuse{})
	a.StartSession(ctx)
	res, err := a.RunTurn(ctx, a.Session.History, llm.UserText("make the tests pass"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println(res.Text)
}

type refuse struct{}

func (refuse) Ask(_ context.Context, req permission.AskRequest) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Deny, Message: "nobody is here to approve: " + req.Decision.Message}, nil
}
