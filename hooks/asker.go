package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/reinsdev/reins/permission"
)

// ErrInterrupted is returned by [Asker] when a PermissionRequest hook denied with interrupt:
// true: the run stops.
var ErrInterrupted = errors.New("a PermissionRequest hook interrupted the run")

// Asker runs the PermissionRequest hooks whenever an ask reaches a front end. With a Next asker
// (a person at a dialog, an SDK client) both run at once and the first answer wins; without one
// (headless) the hooks run before the ask is denied, so a hook can approve a call in `-p`.
type Asker struct {
	Runner *Runner
	// Next is the front end's asker; nil is headless.
	Next permission.Asker
	// Common returns the current cwd and mode for the hook input; nil leaves them out.
	Common func() Common
	// Apply applies (and persists) the updatedPermissions of a hook that allowed; nil ignores
	// them. Its error fails the ask, as a failed settings write does.
	Apply func(ctx context.Context, updates []permission.Update) error
}

func (a *Asker) common() Common {
	if a.Common == nil {
		return Common{}
	}
	return a.Common()
}

// Ask implements permission.Asker.
func (a *Asker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	if a.Next == nil {
		d, decided, err := a.hooks(ctx, req)
		if err != nil || decided {
			return d, err
		}
		// The headless auto-deny, as the engine makes it without an asker.
		return permission.Decision{Behavior: permission.Deny, Message: req.Decision.Message, Reason: req.Decision.Reason, BlockedPath: req.Decision.BlockedPath}, nil
	}

	// Cancel the slower answerer before waiting for it (defers run last first).
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		d        permission.Decision
		err      error
		decided  bool
		fromHook bool
	}
	ch := make(chan answer, 2)
	wg.Go(func() {
		d, decided, err := a.hooks(ctx, req)
		ch <- answer{d, err, decided, true}
	})
	wg.Go(func() {
		d, err := a.Next.Ask(ctx, req)
		ch <- answer{d, err, true, false}
	})
	wg.Go(func() {
		// The person is about to be asked: tell the Notification hooks. They are not cut short
		// when the ask is answered.
		a.Runner.Notification(context.WithoutCancel(ctx), a.common(), "permission_prompt",
			fmt.Sprintf("Reins needs your permission to use %s", req.Tool))
	})
	for range 2 {
		ans := <-ch
		if ans.fromHook && !ans.decided && ans.err == nil {
			continue
		}
		// The deferred cancel stops the other answerer.
		return ans.d, ans.err
	}
	return permission.Decision{}, errors.New("no answer to the permission request")
}

// hooks runs the PermissionRequest hooks and reports whether they decided. deny beats allow;
// a hook that exits 2 denies with its standard error.
func (a *Asker) hooks(ctx context.Context, req permission.AskRequest) (permission.Decision, bool, error) {
	input, err := json.Marshal(req.Input)
	if err != nil {
		input = nil
	}
	fields := map[string]any{"tool_name": req.Tool, "tool_input": json.RawMessage(input)}
	if len(input) == 0 {
		fields["tool_input"] = map[string]any{}
	}
	if len(req.Decision.Suggestions) > 0 {
		fields["permission_suggestions"] = req.Decision.Suggestions
	}
	var rep Report
	var allow *RequestDecision
	var allowedBy string
	var updates []permission.Update
	var denyMsgs, names []string
	interrupt := false
	for _, run := range a.Runner.run(ctx, PermissionRequest, req.Tool, a.common(), fields) {
		if rep.refused(run) {
			denyMsgs = append(denyMsgs, blockReason(run))
			names = append(names, hookRef(run.Hook))
			continue
		}
		o := rep.collect(run)
		if o == nil || o.Specific == nil || o.Specific.Decision == nil {
			continue
		}
		switch rd := o.Specific.Decision; rd.Behavior {
		case "deny":
			denyMsgs = append(denyMsgs, firstNonEmpty(rd.Message, "denied by PermissionRequest hook "+run.Hook.Name()))
			names = append(names, hookRef(run.Hook))
			interrupt = interrupt || rd.Interrupt
		case "allow":
			if allow != nil {
				continue
			}
			if len(rd.UpdatedPermissions) > 0 {
				var us []permission.Update
				if err := json.Unmarshal(rd.UpdatedPermissions, &us); err != nil {
					// An answer that cannot be read in full is not an approval.
					rep.Messages = append(rep.Messages, fmt.Sprintf("PermissionRequest hook %s: invalid updatedPermissions: %v", run.Hook.Name(), err))
					continue
				}
				updates = us
			}
			allow, allowedBy = rd, hookRef(run.Hook)
		}
	}
	switch {
	case interrupt:
		return permission.Decision{}, true, fmt.Errorf("%w: %s", ErrInterrupted, strings.Join(denyMsgs, "; "))
	case len(denyMsgs) > 0:
		return permission.Decision{Behavior: permission.Deny, Message: strings.Join(denyMsgs, "; "),
			Reason: &permission.Reason{Type: permission.ReasonHook, Detail: "PermissionRequest hook " + strings.Join(names, ", "), Hook: strings.Join(names, ", ")}}, true, nil
	case allow != nil:
		if len(updates) > 0 && a.Apply != nil {
			if err := a.Apply(ctx, updates); err != nil {
				return permission.Decision{}, true, fmt.Errorf("applying a PermissionRequest hook's updatedPermissions: %w", err)
			}
		}
		d := permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonHook, Detail: "PermissionRequest hook " + allowedBy, Hook: allowedBy}}
		if len(allow.UpdatedInput) > 0 {
			d.UpdatedInput = allow.UpdatedInput
		}
		return d, true, nil
	}
	return permission.Decision{}, false, nil
}
