// Package hostcanon reads http(s) URLs the way browsers do (the WHATWG URL standard) and
// reduces their hosts to one canonical form, so that a rule written for a host matches every
// spelling of it: case, a trailing dot, percent-encoding, full-width letters and the other
// dots of UTS-46 (U+3002, U+FF0E, U+FF61), punycode, and every IPv4 spelling (2130706433,
// 0177.0.0.1, 0x7f.1, 127.1, [::ffff:127.0.0.1]) are reduced to the form a connection dials.
//
// The contract: [ParseURL] returns a URL whose Hostname is canonical (the same string
// [Host] returns) and whose String a Go client fetches from that host; anything a browser
// would refuse, credentials, and hosts that do not reduce cleanly are errors.
package hostcanon

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/reinsdev/reins/hostform"
)

// profile is UTS-46 processing as the URL standard's "domain to ASCII" does it
// (non-transitional, no STD3 or DNS-length checks).
var profile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false),
	idna.VerifyDNSLength(false), idna.BidiRule())

// ParseURL parses an absolute http or https URL as a browser does and returns it with its host
// canonical.
func ParseURL(raw string) (*url.URL, error) {
	s := strings.Trim(raw, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	scheme, rest, ok := strings.Cut(s, ":")
	scheme = strings.ToLower(scheme)
	if !ok || (scheme != "http" && scheme != "https") {
		return nil, errors.New("not an http or https URL")
	}
	// Special schemes: any run of slashes and backslashes starts the authority.
	rest = strings.TrimLeft(rest, `/\`)
	end := strings.IndexAny(rest, `/\?#`)
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if strings.Contains(authority, "@") {
		return nil, errors.New("the URL carries credentials")
	}
	hostport := authority
	port := ""
	if i := strings.LastIndexByte(authority, ':'); i >= 0 && !strings.HasSuffix(authority, "]") {
		hostport, port = authority[:i], authority[i+1:]
	}
	if port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("invalid port %q", port)
		}
		port = strconv.FormatUint(n, 10)
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		}
	}
	host, err := Host(hostport)
	if err != nil {
		return nil, err
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	// The path's backslashes are slashes in a special URL; the fragment never reaches a server.
	if i := strings.IndexByte(tail, '#'); i >= 0 {
		tail = tail[:i]
	}
	if q := strings.IndexByte(tail, '?'); q >= 0 {
		tail = strings.ReplaceAll(tail[:q], `\`, "/") + tail[q:]
	} else {
		tail = strings.ReplaceAll(tail, `\`, "/")
	}
	u, err := url.Parse(scheme + "://" + host + tail)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// Host returns the canonical form of a URL's host (without brackets for IPv6): an IPv4
// address in dotted decimal, an IPv6 address in its shortest form (an IPv4-mapped one as
// IPv4), or a lower-case ASCII domain name without a trailing dot.
func Host(h string) (string, error) {
	if h == "" {
		return "", errors.New("empty host")
	}
	if strings.HasPrefix(h, "[") {
		if !strings.HasSuffix(h, "]") {
			return "", fmt.Errorf("invalid IPv6 host %q", h)
		}
		return hostform.Canonical(h)
	}
	dec, err := url.PathUnescape(h)
	if err != nil {
		return "", fmt.Errorf("invalid percent-encoding in host %q", h)
	}
	if !utf8.ValidString(dec) {
		return "", fmt.Errorf("host %q is not valid UTF-8", h)
	}
	ascii, err := profile.ToASCII(dec)
	if err != nil {
		return "", fmt.Errorf("host %q is not a valid domain name: %w", h, err)
	}
	ascii = strings.ToLower(ascii)
	// A canonical name reads back as itself; one that does not (a label punycode cannot
	// carry) is refused rather than compared in a form no resolver would use.
	if again, err := profile.ToASCII(ascii); err != nil || again != ascii {
		return "", fmt.Errorf("host %q does not reduce to one canonical name", h)
	}
	if i := strings.IndexAny(ascii, " #%/:<>?@[\\]^|\x7f"); i >= 0 || strings.ContainsFunc(ascii, func(r rune) bool { return r < 0x20 }) {
		return "", fmt.Errorf("host %q holds a character no host may hold", h)
	}
	return hostform.Canonical(ascii)
}

// Addr is the canonical host of an address (the form Host gives it).
func Addr(a netip.Addr) string { return hostform.Addr(a) }

// Pattern canonicalises the host of a domain rule: "*.Example.COM." is "*.example.com", and
// an IPv4 address in any spelling is dotted decimal. A pattern that does not reduce is
// returned lower-cased, so that it still matches what it literally says.
func Pattern(p string) string {
	wild, rest := "", p
	if r, ok := strings.CutPrefix(p, "*."); ok {
		wild, rest = "*.", r
	}
	if h, err := Host(rest); err == nil {
		return wild + h
	}
	if strings.Contains(rest, ":") {
		if h, err := Host("[" + strings.Trim(rest, "[]") + "]"); err == nil {
			return wild + h
		}
	}
	return strings.TrimSuffix(strings.ToLower(p), ".")
}
