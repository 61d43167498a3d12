package permission

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Taint is a session's record of the secret files its agent has read. Once it holds a read,
// every call that can send data off the machine asks ([Engine]'s step "1h taint"), in every
// mode, unless allow rules name each of its destinations.
//
// A Context carries a pointer to its session's record, and every context derived from it (an
// update, a mode change, a sub-agent's view) shares it: a sub-agent that reads a secret taints
// its session, and a tainted session's sub-agents are tainted. A Taint is safe for concurrent
// use. It never clears itself; [Taint.Clear] is for /clear, which starts a new conversation.
type Taint struct {
	mu    sync.Mutex
	reads []SecretRead
	more  int
	// notify is told of every change, outside mu (the session records its state).
	notify func()
}

// SecretRead is one read of a secret file.
type SecretRead struct {
	// Path is the file read, absolute.
	Path string `json:"path"`
	// Pattern is the secret file pattern that covers it.
	Pattern string `json:"pattern"`
	// Tool is the tool that read it (Read, Grep, Bash, ReadMcpResourceTool…).
	Tool string `json:"tool"`
	// CallID is the tool_use id of the call, when it had one.
	CallID string `json:"callId,omitempty"`
}

func (r SecretRead) String() string {
	s := fmt.Sprintf("%s read by %s", r.Path, r.Tool)
	if r.CallID != "" {
		s += " (" + r.CallID + ")"
	}
	return s + ", a secret file (" + r.Pattern + ")"
}

// maxSecretReads bounds the reads a Taint keeps; later ones are counted.
const maxSecretReads = 32

// NewTaint returns a clean record.
func NewTaint() *Taint { return &Taint{} }

// Record adds a read. A read of a path already recorded is not kept twice.
func (t *Taint) Record(r SecretRead) {
	if t == nil {
		return
	}
	t.mu.Lock()
	if slices.ContainsFunc(t.reads, func(o SecretRead) bool { return o.Path == r.Path }) {
		t.mu.Unlock()
		return
	}
	if len(t.reads) == maxSecretReads {
		t.more++
	} else {
		t.reads = append(t.reads, r)
	}
	notify := t.notify
	t.mu.Unlock()
	if notify != nil {
		notify()
	}
}

// SetNotify installs f to be called after every change (a read recorded, Clear); nil removes
// it. f runs outside the record's lock and may read it.
func (t *Taint) SetNotify(f func()) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notify = f
}

// Tainted reports whether a secret has been read.
func (t *Taint) Tainted() bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.reads) > 0
}

// Reads returns the reads recorded, the first first, and how many more were not kept.
func (t *Taint) Reads() ([]SecretRead, int) {
	if t == nil {
		return nil, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.reads), t.more
}

// Restore adds the reads of a resumed session.
func (t *Taint) Restore(reads []SecretRead) {
	for _, r := range reads {
		t.Record(r)
	}
}

// Clear forgets every read: the conversation that saw the secrets is gone (/clear).
func (t *Taint) Clear() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.reads, t.more = nil, 0
	notify := t.notify
	t.mu.Unlock()
	if notify != nil {
		notify()
	}
}

// Taint is the session's taint record.
func (c *Context) Taint() *Taint { return c.taint }

// WithTaint returns the context with t as its session's taint record (a new session in the
// same process, or a resumed one).
func (c *Context) WithTaint(t *Taint) *Context {
	n := c.clone()
	n.taint = t
	return n
}

// Sender is implemented by tools whose calls can send data off the machine. Egress says, for
// one input, where: the known destinations, and whether some part sends where the analysis
// cannot tell.
type Sender interface {
	Egress(ctx context.Context, pc *Context, input any) Egress
}

// Egress is where a call can send data.
type Egress struct {
	// Hosts are network hosts the call connects to (a URL's host, ssh's host), lower-cased,
	// without a port.
	Hosts []string
	// Server is the MCP server an open-world MCP tool belongs to: it sends wherever the
	// server does.
	Server string
	// Unseen says why part of the call can send data to a place the analysis cannot name (a
	// program it does not know, code it cannot see); "" when every destination is known. No
	// rule can name an unseen destination.
	Unseen string
}

// Sends reports whether the call can send data anywhere.
func (e Egress) Sends() bool { return len(e.Hosts) > 0 || e.Server != "" || e.Unseen != "" }

func (e Egress) String() string {
	parts := slices.Clone(e.Hosts)
	if e.Server != "" {
		parts = append(parts, "the MCP server "+e.Server)
	}
	if e.Unseen != "" {
		parts = append(parts, "somewhere unknown ("+e.Unseen+")")
	}
	return strings.Join(parts, ", ")
}

// egressOf asks the tool where the call sends. A tool that panics sends somewhere unknown.
func egressOf(ctx context.Context, pc *Context, t Checker, input any) (e Egress) {
	s, ok := t.(Sender)
	if !ok {
		return Egress{}
	}
	defer func() {
		if r := recover(); r != nil {
			e = Egress{Unseen: fmt.Sprintf("the tool's egress check failed: %v", r)}
		}
	}()
	return s.Egress(ctx, pc, input)
}

// unnamedDestination returns a destination of e that no allow rule names, or "" when rules name
// them all. A host is named by an allow rule WebFetch(domain:HOST) with exactly that host (no
// wildcard); an MCP server by an allow rule for the server (mcp__srv, mcp__srv__*) or for the
// exact tool, while its pin holds. An unseen destination is never named.
func (c *Context) unnamedDestination(t Checker, e Egress) (string, []*Rule) {
	if e.Unseen != "" {
		return "somewhere unknown (" + e.Unseen + ")", nil
	}
	var named []*Rule
	for _, h := range e.Hosts {
		r := c.hostRule(h)
		if r == nil {
			return h, nil
		}
		named = append(named, r)
	}
	if e.Server != "" {
		r := c.serverRule(t, e.Server)
		if r == nil {
			return "the MCP server " + e.Server, nil
		}
		named = append(named, r)
	}
	return "", named
}

func (c *Context) hostRule(host string) *Rule {
	for _, r := range c.ContentRules(Allow, "WebFetch") {
		d, ok := strings.CutPrefix(r.Value.Content, "domain:")
		if ok && host != "" && strings.EqualFold(strings.TrimSuffix(d, "."), strings.TrimSuffix(host, ".")) {
			return r
		}
	}
	return nil
}

func (c *Context) serverRule(t Checker, server string) *Rule {
	name := t.Name()
	var cands []*Rule
	if srv, _ := mcpServer(name); IsMCPName(name) && srv == server {
		cands = append(cands, c.index.toolWide[Allow][name]...)
	}
	cands = append(cands, c.index.server[Allow][server]...)
	for _, r := range cands {
		if ok, _ := pinMatches(t, r); ok {
			return r
		}
	}
	return nil
}

// taintStep is step 1h: in a session that has read a secret, a call that can send data out asks
// unless allow rules name every place it sends to. It is a safety check no mode, allow rule or
// hook passes, and auto mode's classifier cannot approve it.
func (e *Engine) taintStep(ctx context.Context, pc *Context, t Checker, input any) (Decision, bool) {
	reads, _ := pc.taint.Reads()
	if len(reads) == 0 {
		return Decision{}, false
	}
	eg := egressOf(ctx, pc, t, input)
	if !eg.Sends() {
		Note(ctx, Step{Name: "1h taint", Outcome: "no match", Detail: "the session read a secret; this call sends nothing off the machine"})
		return Decision{}, false
	}
	dest, named := pc.unnamedDestination(t, eg)
	if dest == "" {
		for _, r := range named {
			NoteRule(ctx, "1h taint: destination named", r, "pass")
		}
		return Decision{}, false
	}
	first := reads[0]
	why := fmt.Sprintf("the session read a secret (%s); %s can send data to %s, which no allow rule names", first, t.Name(), dest)
	Note(ctx, Step{Name: "1h taint", Outcome: "ask", Detail: why})
	d := Decision{Behavior: Ask,
		Message: fmt.Sprintf("Reins requested permission to use %s, which can send data to %s after this session read the secret file %s. "+
			"No mode or allow rule covers this; allow it only if the destination may see that secret.", t.Name(), dest, first.Path),
		Reason: &Reason{Type: ReasonSafetyCheck, Detail: why}}
	// No suggested rules: "don't ask again" here would quietly grant WebFetch to the host.
	return d, true
}
