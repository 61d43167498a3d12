package schemax

import (
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
)

// stored holds the encoded schema of every built-in tool, one file per key, so that a session
// does not infer and encode them again: that reflection was a tenth of a headless turn's CPU.
//
//go:embed schemas
var stored embed.FS

// registry remembers infer functions for the test of stored schemas only, after Record:
// Static runs for every tool set built (each sub-agent's too), and a lock and a map write
// there would be paid by every session for a test.
var registry struct {
	on atomic.Bool
	sync.Mutex
	infer map[string]func() *jsonschema.Schema
}

// Record makes every later call of Static remember its key's infer function, for
// Registered. The test that keeps the stored files equal to what infer gives calls it
// before it builds the tools.
func Record() { registry.on.Store(true) }

// Static returns the encoded schema stored under key, or, when none is stored, infer's
// schema encoded now. Each key names one schema: a tool whose schema depends on its options
// uses a key per variant. The stored files are kept equal to what infer gives by the test
// of package tools (go test ./tools -run StoredSchemas -update rewrites them).
func Static(key string, infer func() *jsonschema.Schema) json.RawMessage {
	if registry.on.Load() {
		registry.Lock()
		if registry.infer == nil {
			registry.infer = map[string]func() *jsonschema.Schema{}
		}
		registry.infer[key] = infer
		registry.Unlock()
	}
	if b, err := stored.ReadFile("schemas/" + key + ".json"); err == nil {
		return b
	}
	return Encode(infer())
}

// Encode is the encoding Static stores.
func Encode(s *jsonschema.Schema) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("schemax.Encode: %v", err))
	}
	return b
}

// Registered returns the infer function of every key Static has been called with since
// Record.
func Registered() map[string]func() *jsonschema.Schema {
	registry.Lock()
	defer registry.Unlock()
	return maps.Clone(registry.infer)
}

// Stored returns the stored encoding of every key.
func Stored() (map[string][]byte, error) {
	entries, err := stored.ReadDir("schemas")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := stored.ReadFile("schemas/" + e.Name())
		if err != nil {
			return nil, err
		}
		out[e.Name()[:len(e.Name())-len(".json")]] = b
	}
	return out, nil
}
