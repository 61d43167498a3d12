package sdkproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Preread is what `--await-initialize` reads before the session is assembled: the caller's
// lines up to its initialize request, so that the MCP servers it delivers there start with the
// session, as `--mcp-config` servers do.
type Preread struct {
	// MCPServers is the initialize request's mcpServers as sent; nil when it has none, or when
	// the input reached a prompt or its end first.
	MCPServers json.RawMessage
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
		if stop, servers := initializeLine(line); stop {
			p.MCPServers = servers
			break
		}
	}
	p.In = io.MultiReader(&read, lr.r)
	return p, nil
}

// initializeLine says whether line ends the preread (an initialize request, or a user line),
// and the initialize request's mcpServers.
func initializeLine(line []byte) (stop bool, servers json.RawMessage) {
	var in inbound
	if json.Unmarshal(line, &in) != nil {
		return false, nil
	}
	switch in.Type {
	case "user":
		return true, nil
	case "control_request":
		var req struct {
			Subtype    string          `json:"subtype"`
			MCPServers json.RawMessage `json:"mcpServers"`
		}
		if json.Unmarshal(in.Request, &req) != nil || req.Subtype != "initialize" {
			return false, nil
		}
		if len(req.MCPServers) == 0 || string(req.MCPServers) == "null" {
			return true, nil
		}
		return true, req.MCPServers
	}
	return false, nil
}
