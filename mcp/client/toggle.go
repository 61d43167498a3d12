package client

import (
	"context"
	"errors"
	"fmt"
)

// StateOff is a started server the person turned off for the rest of the session (/mcp).
const StateOff = "off"

// Disable ends a started server's session for the rest of this one: it stays off until Enable,
// and its tools leave the pool once the caller makes it again. Nothing is written to the
// settings: the next session starts it as configured. An in-process SDK server is its
// caller's, and a server the configuration keeps off is off already.
func (m *Manager) Disable(name string) error {
	s, err := m.startedServer(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	switch {
	case s.closing:
		s.mu.Unlock()
		return errors.New("the session is closing")
	case s.restarting != nil:
		s.mu.Unlock()
		return fmt.Errorf("MCP server %s is being restarted; try again when it is back", name)
	case s.state == StateOff:
		s.mu.Unlock()
		return nil
	}
	// With session cleared, the old session's watcher leaves its end alone (no restart).
	cs, cmd, cancel := s.session, s.cmd, s.cancel
	s.session, s.client, s.cmd, s.cancel = nil, nil, nil, nil
	s.state, s.reason, s.tools = StateOff, "turned off in /mcp for this session", nil
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	if cancel != nil {
		cancel()
	}
	killGroup(cmd)
	return nil
}

// Enable starts again a server Disable turned off, as Reconnect starts one; the caller makes
// the pool again for its tools.
func (m *Manager) Enable(ctx context.Context, name string) (Status, error) {
	s, err := m.startedServer(name)
	if err != nil {
		return Status{}, err
	}
	s.mu.Lock()
	if s.state != StateOff {
		s.mu.Unlock()
		return s.status(), fmt.Errorf("MCP server %s is not turned off (%s)", name, s.state)
	}
	done := make(chan struct{})
	s.restarting, s.state, s.reason, s.restarted = done, StateRestarting, "starting", false
	s.mu.Unlock()
	s.start(ctx)
	s.mu.Lock()
	s.restarting = nil
	s.mu.Unlock()
	close(done)
	st := s.status()
	if st.State != StateConnected {
		return st, fmt.Errorf("MCP server %s failed: %s", name, st.Reason)
	}
	return st, nil
}

// startedServer is the server name when the configuration started it (not an SDK caller's).
func (m *Manager) startedServer(name string) (*server, error) {
	for _, s := range m.list() {
		if s.name != name {
			continue
		}
		switch {
		case s.entry.State != StateReady:
			return nil, fmt.Errorf("MCP server %s is not started (%s): %s", name, s.entry.State, s.entry.Reason)
		case s.entry.Config.TransportType() == TypeSDK:
			return nil, fmt.Errorf("MCP server %s runs inside the SDK caller, which alone can start or stop it", name)
		}
		return s, nil
	}
	return nil, fmt.Errorf("no MCP server %q", name)
}
