package sdkproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Preread is what `--await-initialize` reads before the session is assembled: the caller's
// lines up to its initialize request, so that the MCP servers it delivers there start with the
// session, as `--mcp-config` servers do.
type Preread struct {
	// MCPServers is the initialize request's mcpServers as sent; nil when it has none, or when
	// the input reached a prompt or its end first.
	MCPServers json.RawMessage
	// Plugins is the initialize request's plugins as sent (ParsePlugins reads them); nil when
	// it has none.
	Plugins json.RawMessage
	// In replays every line read and goes on with the rest of the input: the Server reads the
	// initialize request, and anything before it, as if nothing had been read.
	In io.Reader
}

// ReadInitialize reads in up to and including the first initialize request, or up to the first
// user line (a prompt before the announced initialize, which the Server refuses), or to the end
// of input. A line too long for the protocol is dropped, as the Server would drop it.
func ReadInitialize(in io.Reader) (*Preread, error) {
	lr := newLineReader(in)
	var read bytes.Buffer
	p := &Preread{}
	for {
		line, err := lr.next()
		if errors.Is(err, errLineTooLong) {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		read.Write(line)
		read.WriteByte('\n')
		if stop, req := initializeLine(line); stop {
			p.MCPServers, p.Plugins = present(req.MCPServers), present(req.Plugins)
			break
		}
	}
	p.In = io.MultiReader(&read, lr.r)
	return p, nil
}

// preread is what --await-initialize takes from the initialize request.
type preread struct {
	Subtype    string          `json:"subtype"`
	MCPServers json.RawMessage `json:"mcpServers"`
	Plugins    json.RawMessage `json:"plugins"`
}

// initializeLine says whether line ends the preread (an initialize request, or a user line),
// and the initialize request's fields the session is assembled with.
func initializeLine(line []byte) (stop bool, req preread) {
	var in inbound
	if json.Unmarshal(line, &in) != nil {
		return false, req
	}
	switch in.Type {
	case "user":
		return true, preread{}
	case "control_request":
		if json.Unmarshal(in.Request, &req) != nil || req.Subtype != "initialize" {
			return false, preread{}
		}
		return true, req
	}
	return false, req
}

// present is a field as sent, nil when absent or null.
func present(field json.RawMessage) json.RawMessage {
	if len(field) == 0 || string(field) == "null" {
		return nil
	}
	return field
}

// PluginConfig is one entry of the initialize request's plugins (the SDK's plugins option,
// pluginDelivery 'initialize'): the stdin form of one --plugin-dir flag.
type PluginConfig struct {
	Type string `json:"type"`
	Path string `json:"path"`
	// SkipMCPDiscovery is the SDK's --plugin-dir-no-mcp: the host runs the plugin's servers.
	SkipMCPDiscovery bool `json:"skipMcpDiscovery"`
}

// ParsePlugins reads the initialize request's plugins: a list of {type: "local", path}. A
// field reins does not know, another type, a missing path or skipMcpDiscovery (which reins
// does not honour) is an error naming the entry, so no plugin the caller counts on is dropped.
func ParsePlugins(raw json.RawMessage) ([]PluginConfig, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("initialize plugins: not a list: %v", err)
	}
	out := make([]PluginConfig, 0, len(entries))
	for i, e := range entries {
		var pc PluginConfig
		dec := json.NewDecoder(bytes.NewReader(e))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&pc); err != nil {
			return nil, fmt.Errorf("initialize plugins[%d]: %v", i, err)
		}
		switch {
		case pc.Type != "local":
			return nil, fmt.Errorf("initialize plugins[%d]: type %q: reins loads local plugins only (type \"local\")", i, pc.Type)
		case pc.Path == "":
			return nil, fmt.Errorf("initialize plugins[%d]: no path", i)
		case pc.SkipMCPDiscovery:
			return nil, fmt.Errorf("initialize plugins[%d] (%s): skipMcpDiscovery is not supported by reins: its MCP servers would start anyway", i, pc.Path)
		}
		out = append(out, pc)
	}
	return out, nil
}
