package settings

import (
	"strings"
	"testing"
)

func TestCheckpointLimits(t *testing.T) {
	e := newEnv(t)
	if f, tot := e.load(t).CheckpointLimits(); f != 0 || tot != 0 {
		t.Errorf("no file: %d %d, want the defaults (0)", f, tot)
	}
	e.write(t, "user", `{"checkpoints": {"maxFileBytes": 1000, "maxTotalBytes": 5000000}}`)
	e.write(t, "local", `{"checkpoints": {"maxFileBytes": 2000}}`)
	if f, tot := e.load(t).CheckpointLimits(); f != 2000 || tot != 5000000 {
		t.Errorf("got %d %d, want 2000 (local) and 5000000 (user)", f, tot)
	}
}

func TestBadCheckpointSettingsAreErrorsWithTheirPlace(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{"checkpoints": 5}`, "1:17: checkpoints must be an object of whole numbers (\"maxFileBytes\", \"maxTotalBytes\"), not a number"},
		{`{"checkpoints": {"maxFileByte": 5}}`, `1:18: unknown key "maxFileByte" in checkpoints (did you mean "maxFileBytes"?)`},
		{`{"checkpoints": {"maxFileBytes": -1}}`, "1:34: checkpoints.maxFileBytes must be a whole number, 0 or more, not -1"},
		{`{"checkpoints": {"maxTotalBytes": 1.5}}`, "checkpoints.maxTotalBytes must be a whole number, 0 or more, not 1.5"},
		{`{"checkpoints": {"maxTotalBytes": "1GB"}}`, `checkpoints.maxTotalBytes must be a whole number, 0 or more, not "1GB"`},
		{`{"fileCheckpointingEnabled": "no"}`, "1:30: fileCheckpointingEnabled must be true or false, not a string"},
	}
	for _, tt := range tests {
		e := newEnv(t)
		e.write(t, "user", tt.json)
		if _, err := Load(e.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.json, err, tt.want)
		}
	}
}

func TestFileCheckpointingPolicyWins(t *testing.T) {
	e := newEnv(t)
	if !e.load(t).FileCheckpointingEnabled() {
		t.Error("no file sets it: want on")
	}
	e.write(t, "policy", `{"fileCheckpointingEnabled": false}`)
	e.write(t, "local", `{"fileCheckpointingEnabled": true}`)
	if e.load(t).FileCheckpointingEnabled() {
		t.Error("the policy file's false must win")
	}
}
