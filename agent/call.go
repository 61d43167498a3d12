package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// ErrCallRefused is wrapped by Call's error for a call the engine, a hook or the person refused.
var ErrCallRefused = errors.New("refused")

// Call runs one call that no model reply asked for (a slash command's @file and !`cmd`) through
// the run's own pipeline: the same tools, engine, asker, hooks and current permissions
// (a running command's rules included) as the model's calls. id names it for the asker and
// the hooks. It returns the text of the result; a call that did not return a result is an
// error: refused (wrapping ErrCallRefused, with the reason), invalid, or failed.
func (a *Agent) Call(ctx context.Context, id, name string, input any) (string, error) {
	raw, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("%s input: %w", name, err)
	}
	x := a.newExecutor()
	t := x.lookup(name)
	if t == nil {
		return "", fmt.Errorf("%s: %s", name, tool.UnknownToolMessage(name))
	}
	in, err := toolcall.Decode(t, raw)
	if err != nil {
		return "", fmt.Errorf("%s: %s", name, toolcall.UseErrorText(err))
	}
	use := llm.Block{Type: llm.BlockToolUse, ID: id, Name: name, Input: raw}
	x.stop = &hookStop{}
	out := x.pipeline.Run(withToolUse(ctx, use), toolcall.Call{Tool: t, ID: id, Input: in, Raw: raw,
		Permissions: x.permissions(), Env: x.callEnv(id)})
	switch {
	case out.Err != nil:
		return "", out.Err
	case out.Stage == toolcall.Denied:
		return "", fmt.Errorf("%w: %s", ErrCallRefused, out.Failure)
	case out.Stage != toolcall.Done:
		return "", errors.New(out.Failure)
	}
	return out.Result.TextOf(), nil
}
