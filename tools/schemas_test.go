package tools_test

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/agenttool"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// TestStoredSchemasAreCurrent checks that every schema stored for schemax.Static is the one
// its tool's input type gives today, and that no stored file is left over. With -update it
// writes them. Every variant of every built-in is built first, so that each key is registered.
func TestStoredSchemasAreCurrent(t *testing.T) {
	schemax.Record()
	for _, disable := range []bool{false, true} {
		sh := bash.New(bash.Options{DisableBackground: disable})
		t.Cleanup(func() { sh.Close() })
		tools.Base(tools.Options{Shell: sh, NoRipgrep: true})
	}
	agenttool.New(agenttool.Config{})

	registered := schemax.Registered()
	stored, err := schemax.Stored()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("internal", "schemax", "schemas")
	update := flag.Lookup("update").Value.(flag.Getter).Get().(bool)
	for _, key := range slices.Sorted(maps.Keys(registered)) {
		want := schemax.Encode(registered[key]())
		if bytes.Equal(stored[key], want) {
			continue
		}
		if update {
			if err := os.WriteFile(filepath.Join(dir, key+".json"), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("stored schema %s differs from its input type's:\nstored: %s\nnow:    %s\n(go test ./tools -run StoredSchemas -update rewrites it)", key, stored[key], want)
	}
	for key := range stored {
		if _, ok := registered[key]; ok {
			continue
		}
		if update {
			if err := os.Remove(filepath.Join(dir, key+".json")); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("stored schema %s belongs to no tool (go test ./tools -run StoredSchemas -update removes it)", key)
	}
	if len(registered) < 15 {
		t.Errorf("only %d schemas registered; building the built-ins should register every one", len(registered))
	}
}
