package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tools/web/hostcanon"
)

// The address check at connection time. CheckPermissions matches the URL's canonical host;
// a host name can still resolve to an address a rule names (WebFetch(domain:169.254.169.254)
// denied, evil.example resolving to it), and resolving twice — once to check, once to dial —
// lets a DNS server answer differently the second time. So the fetch's own dialer resolves
// the host once, checks every address it got, in canonical form, against the WebFetch deny
// and ask rules, and dials only the addresses it checked.

// addrCheck refuses an address the fetch must not connect to.
type addrCheck func(ip netip.Addr) error

type addrCheckKey struct{}

func withAddrCheck(ctx context.Context, check addrCheck) context.Context {
	return context.WithValue(ctx, addrCheckKey{}, check)
}

// rulesAddrCheck refuses the addresses that a WebFetch deny or ask rule of pc names: at
// connection time nobody can be asked, so an ask rule refuses.
func rulesAddrCheck(pc *permission.Context) addrCheck {
	return func(ip netip.Addr) error {
		host := hostcanon.Addr(ip)
		for _, b := range []permission.Behavior{permission.Deny, permission.Ask} {
			for _, r := range pc.ContentRules(b, Name) {
				if domainMatches(r.Value.Content, host) {
					return fmt.Errorf("the host resolves to %s, which the %s rule %s names", host, b, r.Value.String())
				}
			}
		}
		return nil
	}
}

// resolver is what the dialer resolves host names with (a fake in tests).
type resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// guardTransport returns rt with a dialer that applies the context's address check (see the
// top of this file). A round tripper that is not an *http.Transport is returned as it is: it
// dials by its own means, which the caller chose.
func guardTransport(rt http.RoundTripper, res resolver) http.RoundTripper {
	var t *http.Transport
	switch x := rt.(type) {
	case nil:
		t = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		t = x.Clone()
	default:
		return rt
	}
	// The environment's proxy (HTTPS_PROXY, NO_PROXY) is kept: a network that requires one
	// would otherwise have no WebFetch. Through it the dialled address is the proxy's, so the
	// resolved-address check below applies to direct connections only; the canonical host's
	// domain rules apply either way (docs/security.md).
	dial := t.DialContext
	if dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		dial = d.DialContext
	}
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		return guardedDial(ctx, network, address, res, dial)
	}
	return t
}

// guardedDial resolves address's host once, checks every address, and dials them in turn.
func guardedDial(ctx context.Context, network, address string, res resolver, dial func(context.Context, string, string) (net.Conn, error)) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("invalid port %q", portText)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = res.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	check, _ := ctx.Value(addrCheckKey{}).(addrCheck)
	for _, ip := range ips {
		if check == nil {
			break
		}
		// One refused address refuses the host: which address a connection ends on is
		// not the caller's choice.
		if err := check(ip.Unmap()); err != nil {
			return nil, err
		}
	}
	var errs []error
	for _, ip := range ips {
		c, err := dial(ctx, network, netip.AddrPortFrom(ip.Unmap(), uint16(port)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}
