package settings

import (
	"strings"
	"testing"
)

func TestAutoCompactEnabled(t *testing.T) {
	e := newEnv(t)
	if !e.load(t).AutoCompactEnabled() {
		t.Error("no file sets autoCompactEnabled: want on")
	}
	e.write(t, "user", `{"autoCompactEnabled": false}`)
	if e.load(t).AutoCompactEnabled() {
		t.Error("the user file turns it off")
	}
	e.write(t, "local", `{"autoCompactEnabled": true}`)
	if !e.load(t).AutoCompactEnabled() {
		t.Error("the local file wins over the user file")
	}
	e.write(t, "local", `{"autoCompactEnabled": "no"}`)
	if _, err := Load(e.opts); err == nil || !strings.Contains(err.Error(), "autoCompactEnabled must be true or false, not a string") {
		t.Errorf("a string: %v", err)
	}
}
