// Package hostform reduces an ASCII host to the one form a connection dials: lower case,
// without a trailing dot, an IPv4 address in dotted decimal whatever its spelling (2130706433,
// 0177.0.0.1, 0x7f.1, 127.1), an IPv6 address in its shortest form and an IPv4-mapped one as
// its IPv4 address. It imports only the standard library, so the pure core (bashrules, for
// curl's and wget's URLs) and the web tool (through tools/web/hostcanon, which adds the
// browser's URL reading and UTS-46) compare hosts the same way.
package hostform

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Canonical returns the canonical form of an ASCII host (brackets around an IPv6 address are
// optional). A host whose last label is a number is an IPv4 address or an error, as in the
// URL standard: 1.2.3.256 and 09.0.0.1 are refused, not read as names.
func Canonical(h string) (string, error) {
	if h == "" {
		return "", errors.New("empty host")
	}
	if strings.HasPrefix(h, "[") || strings.Contains(h, ":") {
		s := strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" || !a.Is6() {
			return "", fmt.Errorf("invalid IPv6 host %q", h)
		}
		return Addr(a), nil
	}
	h = strings.ToLower(h)
	if a, ok, err := IPv4(h); err != nil {
		return "", fmt.Errorf("host %q: %w", h, err)
	} else if ok {
		return Addr(a), nil
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || strings.HasPrefix(h, ".") || strings.Contains(h, "..") || strings.HasSuffix(h, ".") {
		return "", fmt.Errorf("host %q has an empty label", h)
	}
	return h, nil
}

// Addr is the canonical host of an address: an IPv4-mapped IPv6 address is its IPv4 address.
func Addr(a netip.Addr) string {
	return a.Unmap().WithZone("").String()
}

// IPv4 reads a host as the URL standard's IPv4 parser does: when its last label (a trailing
// dot aside) is a number, the host is an address — or an error — with each part decimal,
// octal (a leading 0) or hex (0x), the last part filling the bytes the others leave.
func IPv4(h string) (netip.Addr, bool, error) {
	parts := strings.Split(h, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if _, ok := number(last); !ok && (last == "" || strings.Trim(last, "0123456789") != "") {
		return netip.Addr{}, false, nil // not a number: a domain name
	}
	if len(parts) > 4 {
		return netip.Addr{}, false, errors.New("an IPv4 address has at most four parts")
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := number(p)
		if !ok {
			return netip.Addr{}, false, fmt.Errorf("%q is not an IPv4 number", p)
		}
		if i < len(parts)-1 && n > 255 {
			return netip.Addr{}, false, fmt.Errorf("IPv4 part %q is over 255", p)
		}
		nums[i] = n
	}
	if nums[len(nums)-1] >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false, errors.New("the IPv4 address is out of range")
	}
	v := nums[len(nums)-1]
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, nil
}

// number reads one part of an IPv4 address.
func number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-") {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 1<<32 {
		return 0, false
	}
	return n, true
}
