package toolcall

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// logCapturer notes each capture and its end in the order they happen.
type logCapturer struct{ log *[]string }

func (l logCapturer) BeforeCall(_ context.Context, c Call, input any) func() {
	*l.log = append(*l.log, "capture "+input.(in).What)
	return func() { *l.log = append(*l.log, "done") }
}

func TestAnAllowedCallIsCapturedBeforeItRunsAndADeniedOneNever(t *testing.T) {
	allow := permission.Rule{Value: permission.ParseRule("Stage"), Behavior: permission.Allow, Source: permission.SourceSession}
	tests := []struct {
		name  string
		rules []permission.Rule
		want  []string
	}{
		{"allowed", []permission.Rule{allow}, []string{"capture work", "ran", "done"}},
		{"denied (headless ask)", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			var log []string
			ctx := WithCapturer(context.Background(), logCapturer{&log})
			raw, _ := json.Marshal(in{What: "work"})
			input, err := Decode(stageTool, raw)
			if err != nil {
				t.Fatal(err)
			}
			p := Pipeline{Finish: func(_ tool.Tool, _ string, res tool.Result) tool.Result {
				log = append(log, "ran")
				return res
			}}
			p.Run(ctx, Call{Tool: stageTool, Input: input, Raw: raw, Permissions: pc, Env: &tool.Env{}})
			if !slices.Equal(log, tt.want) {
				t.Errorf("log %v, want %v", log, tt.want)
			}
		})
	}
}
