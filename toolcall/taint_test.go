package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// readerTool "reads" the file its input names: it returns it in Result.Reads, or fails.
var readerTool = tool.Build(tool.Def[in]{Name: "Reader", Description: "reads a file",
	CheckPermissions: func(ctx context.Context, pc *permission.Context, i in) permission.Decision {
		return pc.CheckRead(ctx, i.What)
	},
	Call: func(_ context.Context, i in, _ *tool.Env) (tool.Result, error) {
		if filepath.Base(i.What) == "broken.pem" {
			return tool.Result{}, errors.New("read failed")
		}
		return tool.Result{Content: []tool.Content{tool.Text("content")}, Reads: []string{i.What}}, nil
	}})

// TestSecretReadTaints: a call that returned with a secret file among its reads taints the
// session, naming the file, the tool and the call; a denied call, a failed call and a read of
// an ordinary file do not.
func TestSecretReadTaints(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		path    string
		rules   []string
		want    Stage
		tainted bool
	}{
		{"a secret read", filepath.Join(dir, ".env.local"), nil, Done, true},
		{"a key read", filepath.Join(dir, "certs", "server.pem"), nil, Done, true},
		{"an ordinary file", filepath.Join(dir, "main.go"), nil, Done, false},
		{"a denied read", filepath.Join(dir, ".env"), []string{"Read(.env)"}, Denied, false},
		{"a failed read", filepath.Join(dir, "broken.pem"), nil, Failed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rules []permission.Rule
			for _, r := range tt.rules {
				rules = append(rules, permission.Rule{Value: permission.ParseRule(r), Behavior: permission.Deny, Source: permission.SourceUser})
			}
			pc, err := permission.New(permission.Config{Cwd: dir, Rules: rules})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(in{What: tt.path})
			input, err := Decode(readerTool, raw)
			if err != nil {
				t.Fatal(err)
			}
			var p Pipeline
			out := p.Run(context.Background(), Call{Tool: readerTool, ID: "toolu_9", Input: input, Raw: raw, Permissions: pc, Env: &tool.Env{}})
			if out.Stage != tt.want {
				t.Fatalf("stage %d, want %d (%s)", out.Stage, tt.want, out.Failure)
			}
			reads, _ := pc.Taint().Reads()
			if tt.tainted != (len(reads) > 0) {
				t.Fatalf("reads %+v, want tainted=%v", reads, tt.tainted)
			}
			if tt.tainted && (reads[0].Path != tt.path || reads[0].Tool != "Reader" || reads[0].CallID != "toolu_9") {
				t.Errorf("the read recorded: %+v", reads[0])
			}
		})
	}
}
