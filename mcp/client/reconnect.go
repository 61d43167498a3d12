package client

import (
	"context"
	"errors"
	"fmt"
)

// Reconnect ends a server's session, if it has one, and starts it again: the person's way
// back for a server that failed or crashed for good (a crash restarts a stdio server once, by
// itself). The server gets its one automatic restart again. Calls that arrive meanwhile wait
// for it, as they do for a restart. A server that was never started (waiting for approval,
// disabled, denied, invalid) stays off: reconnecting must not start what the configuration
// keeps off. An in-process SDK server is its caller's, which alone can start it.
//
// The server's tools are read again; the caller makes the pool again if it wants tools that
// were not there before (a server that failed at start had none).
func (m *Manager) Reconnect(ctx context.Context, name string) (Status, error) {
	var s *server
	for _, c := range m.list() {
		if c.name == name {
			s = c
		}
	}
	if s == nil {
		return Status{}, fmt.Errorf("no MCP server %q", name)
	}
	if s.entry.State != StateReady {
		return s.status(), fmt.Errorf("MCP server %s is not started (%s): %s", name, s.entry.State, s.entry.Reason)
	}
	if s.entry.Config.TransportType() == TypeSDK {
		return s.status(), fmt.Errorf("MCP server %s runs inside the SDK caller, which alone can start it again", name)
	}
	done := make(chan struct{})
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return s.status(), errors.New("the session is closing")
	}
	if s.restarting != nil {
		s.mu.Unlock()
		return s.status(), fmt.Errorf("MCP server %s is being restarted already", name)
	}
	// With session cleared, the old session's watcher leaves its end alone (no restart).
	cs, cmd, cancel := s.session, s.cmd, s.cancel
	s.session, s.client, s.cmd, s.cancel = nil, nil, nil, nil
	s.restarting, s.state, s.reason, s.restarted = done, StateRestarting, "reconnecting", false
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	if cancel != nil {
		cancel()
	}
	killGroup(cmd)
	return s.startAgain(ctx, name, done)
}

// startAgain starts s, marked restarting (done is closed when it is no longer), and reports
// how it went.
func (s *server) startAgain(ctx context.Context, name string, done chan struct{}) (Status, error) {
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

// ServerTools are the pool names of a connected server's tools, sorted; none for a server
// that is not connected, or whose tools were all left out.
func (m *Manager) ServerTools(name string) []string {
	names := m.poolNames()
	for _, s := range m.list() {
		if s.name != name {
			continue
		}
		s.mu.Lock()
		connected := s.state == StateConnected
		s.mu.Unlock()
		if !connected {
			return nil
		}
		var out []string
		for _, t := range sortedNames(names[s]) {
			if p := names[s][t]; p.refused == "" {
				out = append(out, p.name)
			}
		}
		return out
	}
	return nil
}
