package confine

import (
	"slices"
	"testing"
)

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"sock"}, {"fd:3", "1", "maybe", "--", "true", "true"}, {"x", "1", "unix", "--", "true", "true"},
		{"fd:3", "0", "unix", "--", "true", "true"}, {"fd:3", "1", "unix", "--", "true"}} {
		if code := BridgeMain(args); code != 2 {
			t.Errorf("BridgeMain(%q) = %d, want 2", args, code)
		}
	}
	for _, args := range [][]string{{"fd:3"}, {"fd:1", "--", "true", "true"}, {"x", "--", "true", "true"}, {"fd:3", "--", "true"}} {
		if code := LandlockMain(args); code != 2 {
			t.Errorf("LandlockMain(%q) = %d, want 2", args, code)
		}
	}
}

func TestRulesRoundTrip(t *testing.T) {
	r := Rules{ProxyPort: 41234, LocalBinding: true, UnixListed: true, Grants: []Grant{
		{Path: "/", Access: AccessListDir, Dir: true}, {Path: "/a b/ü\tx", Access: AccessRW}, {Path: "/dev/null", Access: AccessDev}}}
	got, err := decodeRules(r.Encode())
	if err != nil || got.ProxyPort != r.ProxyPort || !got.LocalBinding || !got.UnixListed || !slices.Equal(got.Grants, r.Grants) {
		t.Errorf("decode(encode(%+v)) = %+v, %v", r, got, err)
	}
	for _, bad := range []string{"", "json", rulesMagic + "\x00port\x00x\x00", rulesMagic + "\x00grant\x00rw\x00", rulesMagic + "\x00what\x00"} {
		if _, err := decodeRules([]byte(bad)); err == nil {
			t.Errorf("decodeRules(%q) accepted it", bad)
		}
	}
	if got, _ := decodeRules(Rules{}.Encode()); got.ProxyPort != 0 || len(got.Grants) != 0 {
		t.Errorf("empty rules: %+v", got)
	}
}

func TestItoaAtoi(t *testing.T) {
	for _, n := range []int{0, 7, 10, 65535, 123456789} {
		if got, ok := atoi(itoa(n)); !ok || got != n {
			t.Errorf("atoi(itoa(%d)) = %d, %v", n, got, ok)
		}
	}
	for _, s := range []string{"", "-1", "1x", "9999999999"} {
		if _, ok := atoi(s); ok {
			t.Errorf("atoi(%q) accepted it", s)
		}
	}
}

// FuzzDecodeRules: the helper's reader never panics, and what it reads encodes back to the
// same rules.
func FuzzDecodeRules(f *testing.F) {
	f.Add(Rules{ProxyPort: 1, Grants: []Grant{{Path: "/", Access: AccessRO, Dir: true}}}.Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRules(b)
		if err != nil {
			return
		}
		again, err := decodeRules(r.Encode())
		if err != nil || again.ProxyPort != r.ProxyPort || again.LocalBinding != r.LocalBinding || again.UnixListed != r.UnixListed || !slices.Equal(again.Grants, r.Grants) {
			t.Fatalf("%q: decode(encode(%+v)) = %+v, %v", b, r, again, err)
		}
	})
}
