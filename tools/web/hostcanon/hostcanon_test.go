package hostcanon

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestHostCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want, why string }{
		{"Example.COM", "example.com", "case"},
		{"example.com.", "example.com", "a trailing dot is the same host"},
		{"ex%61mple.com", "example.com", "percent-encoding is decoded"},
		{"ｅｘａｍｐｌｅ.com", "example.com", "full-width letters map to ASCII (UTS-46)"},
		{"example。com", "example.com", "U+3002 ideographic full stop is a dot"},
		{"example．com", "example.com", "U+FF0E full-width full stop is a dot"},
		{"example｡com", "example.com", "U+FF61 half-width ideographic full stop is a dot"},
		{"bücher.de", "xn--bcher-kva.de", "IDN to punycode"},
		{"XN--BCHER-KVA.de", "xn--bcher-kva.de", "punycode case"},
		{"2130706433", "127.0.0.1", "one decimal number"},
		{"0177.0.0.1", "127.0.0.1", "octal part"},
		{"0x7f.1", "127.0.0.1", "hex part, short form"},
		{"0x7F000001", "127.0.0.1", "one hex number"},
		{"127.1", "127.0.0.1", "two parts"},
		{"127.0.1", "127.0.0.1", "three parts"},
		{"127.0.0.1.", "127.0.0.1", "a trailing dot on an address"},
		{"１２７.０.０.１", "127.0.0.1", "full-width digits"},
		{"[::ffff:127.0.0.1]", "127.0.0.1", "IPv4-mapped IPv6 is the IPv4 address"},
		{"[::FFFF:7f00:1]", "127.0.0.1", "IPv4-mapped IPv6 in hex"},
		{"[0:0:0:0:0:0:0:1]", "::1", "IPv6 shortest form"},
		{"169.254.169.254", "169.254.169.254", "dotted decimal stays"},
	} {
		got, err := Host(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Host(%q) = %q, %v; want %q (%s)", tc.in, got, err, tc.want, tc.why)
		}
	}
	for _, tc := range []struct{ in, why string }{
		{"256.0.0.1", "a part over 255"},
		{"1.2.3.4.5", "five parts ending in a number"},
		{"4294967296", "over 32 bits"},
		{"09.1.1.1", "8 and 9 are not octal"},
		{"exa mple.com", "a space"},
		{"a..com", "an empty label"},
		{"[::1%eth0]", "a zone"},
		{"", "empty"},
	} {
		if got, err := Host(tc.in); err == nil {
			t.Errorf("Host(%q) = %q; want an error (%s)", tc.in, got, tc.why)
		}
	}
}

func TestParseURLAsBrowsers(t *testing.T) {
	for _, tc := range []struct{ in, want, why string }{
		{`http://example.com/a`, "http://example.com/a", "plain"},
		{`HTTPS://EXAMPLE.com:443/`, "https://example.com/", "scheme case and the default port"},
		{`http:\\example.com\a\b?x=\y`, "http://example.com/a/b?x=\\y", "backslashes are slashes (not in the query)"},
		{`http:example.com/a`, "http://example.com/a", "missing slashes"},
		{`http:/example.com`, "http://example.com", "one slash"},
		{`https:///example.com`, "https://example.com", "three slashes"},
		{"  http://exa\tmple.com/\n ", "http://example.com/", "spaces around, tabs and newlines inside are dropped"},
		{`http://0x7f.1:8080/x`, "http://127.0.0.1:8080/x", "an IPv4 spelling with a port"},
		{`http://[::ffff:127.0.0.1]/`, "http://127.0.0.1/", "mapped IPv6"},
		{`http://example.com./#frag`, "http://example.com/", "trailing dot, fragment"},
		{`http://evil.com\@good.com/`, "http://evil.com/@good.com/", "a backslash ends the host before the @"},
	} {
		u, err := ParseURL(tc.in)
		if err != nil || u.String() != tc.want {
			t.Errorf("ParseURL(%q) = %v, %v; want %s (%s)", tc.in, u, err, tc.want, tc.why)
		}
	}
	for _, in := range []string{"ftp://example.com", "http://user:pw@example.com/", "http://a@127.0.0.1", "http://example.com:99999/", "javascript:alert(1)"} {
		if u, err := ParseURL(in); err == nil {
			t.Errorf("ParseURL(%q) = %v; want an error", in, u)
		}
	}
}

func TestPattern(t *testing.T) {
	for in, want := range map[string]string{"*.Example.COM.": "*.example.com", "0x7f.1": "127.0.0.1", "::ffff:127.0.0.1": "127.0.0.1", "[::1]": "::1", "ex ample": "ex ample"} {
		if got := Pattern(in); got != want {
			t.Errorf("Pattern(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPropertyEverySpellingOfAnAddress: every IPv4 spelling of an address (decimal, octal,
// hex, short forms, mapped IPv6, trailing dot) reduces to the one canonical host.
func TestPropertyEverySpellingOfAnAddress(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := [4]byte{}
		for i := range b {
			b[i] = byte(rapid.IntRange(0, 255).Draw(t, fmt.Sprint("b", i)))
		}
		a := netip.AddrFrom4(b)
		want := a.String()
		num := func(n uint64) string {
			switch rapid.IntRange(0, 2).Draw(t, "base") {
			case 1:
				return fmt.Sprintf("0%o", n)
			case 2:
				return fmt.Sprintf("0x%x", n)
			}
			return fmt.Sprint(n)
		}
		v := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
		var s string
		switch rapid.IntRange(0, 4).Draw(t, "form") {
		case 0:
			s = num(v)
		case 1:
			s = num(uint64(b[0])) + "." + num(v&0xffffff)
		case 2:
			s = num(uint64(b[0])) + "." + num(uint64(b[1])) + "." + num(v&0xffff)
		case 3:
			s = num(uint64(b[0])) + "." + num(uint64(b[1])) + "." + num(uint64(b[2])) + "." + num(uint64(b[3]))
		case 4:
			s = "[::ffff:" + want + "]"
		}
		if !strings.HasPrefix(s, "[") && rapid.Bool().Draw(t, "dot") {
			s += "."
		}
		got, err := Host(s)
		if err != nil || got != want {
			t.Fatalf("Host(%q) = %q, %v; want %q", s, got, err, want)
		}
		if u, err := ParseURL("http://" + s + "/"); err != nil || u.Hostname() != want {
			t.Fatalf("ParseURL(http://%s/) = %v, %v; want host %q", s, u, err, want)
		}
	})
}

// FuzzParseURL: a URL that parses has a canonical host: Host of it is itself, and parsing the
// URL's String again gives the same URL.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"http://example.com/", `http:\\0x7f.1\x`, "https://ｅｘａｍｐｌｅ。com./", "http://[::ffff:127.0.0.1]:80/",
		"http://2130706433/", "http://a%2eb.com/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURL(s)
		if err != nil {
			return
		}
		h := u.Hostname()
		if again, err := Host(bracket(h)); err != nil || again != h {
			t.Fatalf("%q: host %q is not canonical (%q, %v)", s, h, again, err)
		}
		u2, err := ParseURL(u.String())
		if err != nil || u2.Hostname() != h {
			t.Fatalf("%q: %s parses again to %v, %v", s, u, u2, err)
		}
	})
}

func bracket(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return h
}
