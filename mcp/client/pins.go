package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// pinnedDefinition is what a pin covers: the parts of a tool the model and the person see.
type pinnedDefinition struct {
	Name        string               `json:"name"`
	Description string               `json:"description"`
	InputSchema any                  `json:"inputSchema"`
	Annotations *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

func definitionOf(t *mcp.Tool) pinnedDefinition {
	return pinnedDefinition{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations}
}

// DefinitionHash is the SHA-256 of a tool's name, description, input schema and annotations
// (canonical JSON: encoding/json sorts map keys).
func DefinitionHash(t *mcp.Tool) string {
	b, _ := json.Marshal(definitionOf(t))
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Pin is a recorded definition for one rule and tool.
type Pin struct {
	Rule        string `json:"rule"`
	Tool        string `json:"tool"`
	Hash        string `json:"hash"`
	Description string `json:"description"`
}

// Pins records, for each allow rule (by its source, file and text) and MCP tool, the hash of
// the definition the rule was first applied to. The file lives in the config folder, next to
// the user's settings, whatever the rule's source: a repository cannot ship pins.
type Pins struct {
	path string
	// ReadOnly stores nothing (permissions check, tests).
	ReadOnly bool

	mu   sync.Mutex
	pins map[string]Pin
}

// OpenPins reads the pin file (a missing file is empty). An empty path keeps pins in memory.
func OpenPins(path string) (*Pins, error) {
	p := &Pins{path: path, pins: map[string]Pin{}}
	if path == "" {
		return p, nil
	}
	data, err := boundedfile.Read(context.Background(), path, configLimits)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading MCP pins: %w", err)
	}
	var list []Pin
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, (&doc{file: path, data: data, lines: posjson.NewLines(data)}).jsonError(0, "pins", err)
	}
	for _, pin := range list {
		p.pins[pin.Rule+"\x00"+pin.Tool] = pin
	}
	return p, nil
}

// RuleKey names a rule for pinning: its source, its file and its text.
func RuleKey(r *permission.Rule) string {
	k := r.Source.String()
	if r.Origin.File != "" {
		k += ":" + r.Origin.File
	}
	return k + ":" + r.Value.String()
}

// Match reports whether def is the definition pinned for rule and tool, pinning it when
// nothing is pinned yet. detail says what changed.
func (p *Pins) Match(r *permission.Rule, toolName string, def *mcp.Tool) (bool, string) {
	key := RuleKey(r)
	hash := DefinitionHash(def)
	p.mu.Lock()
	defer p.mu.Unlock()
	pin, ok := p.pins[key+"\x00"+toolName]
	if !ok {
		if !p.ReadOnly {
			p.pins[key+"\x00"+toolName] = Pin{Rule: key, Tool: toolName, Hash: hash, Description: def.Description}
			_ = p.save() // a pin that cannot be stored is pinned again next session
		}
		return true, ""
	}
	if pin.Hash == hash {
		return true, ""
	}
	detail := fmt.Sprintf("the definition of %s changed since rule %s was granted (pinned %s, now %s)", toolName, key, short(pin.Hash), short(hash))
	if pin.Description != def.Description {
		detail += fmt.Sprintf("; description was %q, now %q", pin.Description, def.Description)
	}
	return false, detail
}

// Repin accepts the current definition for every rule pinned to toolName (`reins mcp` after the
// person reviewed the change).
func (p *Pins) Repin(toolName string, def *mcp.Tool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, pin := range p.pins {
		if pin.Tool == toolName {
			pin.Hash, pin.Description = DefinitionHash(def), def.Description
			p.pins[k] = pin
		}
	}
	return p.save()
}

// List returns the pins in order.
func (p *Pins) List() []Pin {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Pin, 0, len(p.pins))
	for _, pin := range p.pins {
		out = append(out, pin)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tool != out[j].Tool {
			return out[i].Tool < out[j].Tool
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

func short(h string) string {
	if len(h) > 19 {
		return h[:19]
	}
	return h
}

func (p *Pins) save() error {
	if p.ReadOnly || p.path == "" {
		return nil
	}
	list := make([]Pin, 0, len(p.pins))
	for _, pin := range p.pins {
		list = append(list, pin)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Rule+list[i].Tool < list[j].Rule+list[j].Tool })
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return err
	}
	tmp := p.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p.path)
}

// Repin accepts the current definitions of a connected server's tools for every rule pinned
// to them, after the person reviewed the change (`reins mcp repin`). It returns how many
// tools had pins.
func (m *Manager) Repin(server string) (int, error) {
	s := m.server(server)
	if s == nil || m.opts.Pins == nil {
		return 0, fmt.Errorf("no MCP server %q", server)
	}
	names := m.poolNames()[s]
	s.mu.Lock()
	defs := slices.Clone(s.tools)
	s.mu.Unlock()
	n := 0
	pinned := map[string]bool{}
	for _, p := range m.opts.Pins.List() {
		pinned[p.Tool] = true
	}
	for _, d := range defs {
		name := names[d.Name].name
		if !pinned[name] {
			continue
		}
		if err := m.opts.Pins.Repin(name, d); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
