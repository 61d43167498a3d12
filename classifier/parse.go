package classifier

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// Kinds of [Failure]: why a request gave no verdict.
const (
	KindError       = "error"
	KindTimeout     = "timeout"
	KindRefusal     = "refusal"
	KindUnparseable = "unparseable answer"
	KindTooLarge    = "too large"
)

// Failure is a request that gave no verdict. The engine treats it as a block that a person
// may overrule.
type Failure struct {
	Kind   string
	Detail string
}

func (f *Failure) Error() string { return f.Kind + ": " + f.Detail }

// maxReason bounds the reason that reaches the trace, the model and the person.
const maxReason = 500

// parseVerdict reads the verdict from an answer: exactly one call of the verdict tool whose
// input is exactly {"decision": "allow"|"block", "reason": non-empty}. Text is never read.
func parseVerdict(resp *llm.Response) (permission.Verdict, error) {
	if resp.StopReason == llm.StopRefusal {
		return permission.Verdict{}, &Failure{Kind: KindRefusal, Detail: "the model refused to judge the action"}
	}
	uses := resp.Message.ToolUses()
	switch {
	case len(uses) == 0:
		return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: "the answer has no " + VerdictTool + " call" + textHint(resp.Message)}
	case len(uses) > 1:
		return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: fmt.Sprintf("the answer has %d tool calls; want one %s call", len(uses), VerdictTool)}
	case uses[0].Name != VerdictTool:
		return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: fmt.Sprintf("the answer calls %q; want %s", uses[0].Name, VerdictTool)}
	}
	if err := uniqueKeys(uses[0].Input); err != nil {
		return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: "the verdict's input: " + err.Error()}
	}
	var v struct {
		Decision *string `json:"decision"`
		Reason   *string `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(uses[0].Input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: "the verdict's input: " + err.Error()}
	}
	if dec.More() {
		return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: "the verdict's input has data after its object"}
	}
	switch {
	case v.Decision == nil:
		return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: "the verdict has no decision"}
	case v.Reason == nil || strings.TrimSpace(*v.Reason) == "":
		return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: "the verdict has no reason"}
	}
	reason := cut(strings.TrimSpace(*v.Reason), maxReason)
	switch *v.Decision {
	case "allow":
		return permission.Verdict{Reason: reason}, nil
	case "block":
		return permission.Verdict{Block: true, Reason: reason}, nil
	}
	return permission.Verdict{}, &Failure{Kind: KindUnparseable, Detail: fmt.Sprintf("the decision is %q; want \"allow\" or \"block\"", cut(*v.Decision, 40))}
}

// textHint shows the start of an answer given as text, for the trace.
func textHint(m llm.Message) string {
	t := strings.TrimSpace(m.Text())
	if t == "" {
		return ""
	}
	return fmt.Sprintf(" (it says %q)", cut(t, 80))
}

// uniqueKeys refuses an object that names a field twice: encoding/json would keep the last
// value, and a verdict that says both block and allow is no verdict.
func uniqueKeys(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // not an object: the strict decode names the problem
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("the field %q appears twice", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}
