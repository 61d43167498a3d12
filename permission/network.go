package permission

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// SandboxNetworkTool is the tool name of the ask about a host the OS sandbox's proxy refused.
// No tool of that name runs: the name tells the answer channels (the chat's dialog, an SDK
// caller's can_use_tool, a permission-prompt tool, PermissionRequest hooks) what is asked. Its
// input is a [NetworkRequest].
const SandboxNetworkTool = "SandboxNetworkAccess"

// NetworkRequest is the input of a [SandboxNetworkTool] ask: the host and port a sandboxed
// command is connecting to, its connection held by the proxy while the ask is open.
type NetworkRequest struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// NetworkAsk is the ask about a connection to host:port that neither
// sandbox.network.allowedDomains nor a WebFetch allow rule admits. Its one suggestion, what
// "always" saves, is the allow rule WebFetch(domain:host): the sandbox reads WebFetch's domain
// rules as allowed domains, this session's at once and saved ones in every session after.
func NetworkAsk(host string, port int) AskRequest {
	hp := net.JoinHostPort(host, strconv.Itoa(port))
	return AskRequest{Tool: SandboxNetworkTool, Input: NetworkRequest{Host: host, Port: port},
		Decision: Decision{Behavior: Ask,
			Message: fmt.Sprintf("A sandboxed command is connecting to %s, which neither sandbox.network.allowedDomains nor a WebFetch allow rule admits. "+
				"Allow it only if the command should reach that host.", hp),
			Reason: &Reason{Type: ReasonOther, Detail: "the sandbox's proxy holds a connection to " + hp},
			Suggestions: []Update{{Type: AddRules, Destination: SourceLocal, Behavior: Allow,
				Rules: []RuleValue{{Tool: "WebFetch", Content: "domain:" + host}}}}}}
}

// NetworkAnswerAllows reports whether an asker's answer to req (a [NetworkAsk]) lets the
// connection through: an allow that substitutes nothing, or substitutes the same host and
// port. An answer cannot send the command to another host.
func NetworkAnswerAllows(req AskRequest, d Decision) bool {
	if d.Behavior != Allow {
		return false
	}
	if d.UpdatedInput == nil {
		return true
	}
	raw, err := RawInput(d.UpdatedInput)
	if err != nil {
		return false
	}
	var got NetworkRequest
	want, _ := req.Input.(NetworkRequest)
	return json.Unmarshal(raw, &got) == nil && strings.EqualFold(got.Host, want.Host) && got.Port == want.Port
}

// NetworkRule is the WebFetch domain rule that decides a connection to host: a deny rule
// first, then an ask rule, then an allow rule, as WebFetch orders them; nil when none names
// the host. match says whether a rule's domain ("example.com", "*.example.com") covers host,
// as the sandbox's proxy compares them.
func (c *Context) NetworkRule(host string, match func(domain, host string) bool) *Rule {
	for _, b := range []Behavior{Deny, Ask, Allow} {
		for _, r := range c.ContentRules(b, "WebFetch") {
			if d, ok := strings.CutPrefix(r.Value.Content, "domain:"); ok && match(d, host) {
				return r
			}
		}
	}
	return nil
}
