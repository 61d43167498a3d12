package settings

import (
	"strings"
	"testing"
)

// TestCheckpointLimits: the person's own files set the store's limits by precedence; a
// project's shared file, and a local file until the project is trusted, may only lower them,
// and a value that would raise one is ignored with a warning at its place.
func TestCheckpointLimits(t *testing.T) {
	const defFile, defTotal = 16 << 20, 1 << 30
	tests := []struct {
		name        string
		files       map[string]string
		trusted     bool
		file, total int64
		warn        string // a warning's text, "" for none
	}{
		{name: "no file: the defaults", file: defFile, total: defTotal},
		{name: "the person's files by precedence", files: map[string]string{"user": `{"checkpoints": {"maxFileBytes": 1000, "maxTotalBytes": 5000000}}`, "local": `{"checkpoints": {"maxFileBytes": 2000}}`},
			trusted: true, file: 2000, total: 5000000},
		{name: "an untrusted clone cannot raise them (60 MB where the default keeps 16 MiB)", files: map[string]string{"project": `{"checkpoints": {"maxFileBytes": 62914560, "maxTotalBytes": 107374182400}}`},
			file: defFile, total: defTotal, warn: "checkpoints.maxFileBytes 62914560 is ignored: a project's shared settings file may only lower the checkpoint store's limits (16777216 here)"},
		{name: "nor can a trusted project's shared file", files: map[string]string{"projectClaude": `{"checkpoints": {"maxFileBytes": 62914560}}`}, trusted: true,
			file: defFile, total: defTotal, warn: "checkpoints.maxFileBytes 62914560 is ignored"},
		{name: "an untrusted local file cannot raise them", files: map[string]string{"local": `{"checkpoints": {"maxTotalBytes": 107374182400}}`},
			file: defFile, total: defTotal, warn: "local settings wait for trust too"},
		{name: "a trusted local file can", files: map[string]string{"local": `{"checkpoints": {"maxTotalBytes": 107374182400}}`}, trusted: true,
			file: defFile, total: 107374182400},
		{name: "a project lowers them", files: map[string]string{"project": `{"checkpoints": {"maxFileBytes": 1000}}`, "local": `{"checkpoints": {"maxTotalBytes": 4000}}`},
			file: 1000, total: 4000},
		{name: "a project lowers what the user raised", files: map[string]string{"user": `{"checkpoints": {"maxFileBytes": 99999999}}`, "project": `{"checkpoints": {"maxFileBytes": 50000000}}`},
			file: 50000000, total: defTotal},
		{name: "a project's raise is measured against the user's lower limit", files: map[string]string{"user": `{"checkpoints": {"maxFileBytes": 1000}}`, "project": `{"checkpoints": {"maxFileBytes": 5000}}`},
			file: 1000, total: defTotal, warn: "(1000 here)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for src, doc := range tt.files {
				e.write(t, src, doc)
			}
			f, tot, warns := e.load(t).CheckpointLimits(tt.trusted, defFile, defTotal)
			if f != tt.file || tot != tt.total {
				t.Errorf("limits %d %d, want %d %d", f, tot, tt.file, tt.total)
			}
			switch {
			case tt.warn == "" && len(warns) > 0:
				t.Errorf("warnings %v, want none", warns)
			case tt.warn != "" && (len(warns) == 0 || !strings.Contains(warns[0].String(), tt.warn) || warns[0].Line == 0):
				t.Errorf("warnings %v, want one at its place saying %q", warns, tt.warn)
			}
		})
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

// TestFileCheckpointing: the policy's false wins; a project's false (its shared or local
// file's) turns checkpoints off only once the project is trusted, and is a warning until then.
func TestFileCheckpointing(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		trusted bool
		on      bool
		warn    bool
	}{
		{name: "no file sets it: on", on: true},
		{name: "the policy's false wins", files: map[string]string{"policy": `{"fileCheckpointingEnabled": false}`, "local": `{"fileCheckpointingEnabled": true}`}, trusted: true},
		{name: "the user turns it off", files: map[string]string{"user": `{"fileCheckpointingEnabled": false}`}},
		{name: "an untrusted clone cannot turn it off", files: map[string]string{"projectClaude": `{"fileCheckpointingEnabled": false}`}, on: true, warn: true},
		{name: "nor can its local file", files: map[string]string{"local": `{"fileCheckpointingEnabled": false}`}, on: true, warn: true},
		{name: "a trusted project can", files: map[string]string{"project": `{"fileCheckpointingEnabled": false}`}, trusted: true},
		{name: "an untrusted project may turn it on where the user turned it off", files: map[string]string{"user": `{"fileCheckpointingEnabled": false}`, "project": `{"fileCheckpointingEnabled": true}`}, on: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for src, doc := range tt.files {
				e.write(t, src, doc)
			}
			on, warns := e.load(t).FileCheckpointingEnabled(tt.trusted)
			if on != tt.on {
				t.Errorf("on = %v, want %v", on, tt.on)
			}
			if tt.warn != (len(warns) > 0) || tt.warn && (warns[0].Line == 0 || !strings.Contains(warns[0].Message, "not trusted")) {
				t.Errorf("warnings %v, want a warning at its place: %v", warns, tt.warn)
			}
		})
	}
}
