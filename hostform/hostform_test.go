package hostform

import "testing"

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Example.COM.", "example.com"}, {"2130706433", "127.0.0.1"}, {"0177.0.0.1", "127.0.0.1"}, {"0x7f.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"}, {"127.0.1", "127.0.0.1"}, {"0X7F000001", "127.0.0.1"}, {"127.0.0.1.", "127.0.0.1"},
		{"[::ffff:127.0.0.1]", "127.0.0.1"}, {"::ffff:7f00:1", "127.0.0.1"}, {"[0::1]", "::1"}, {"0x", "0.0.0.0"},
	} {
		if got, err := Canonical(tc.in); err != nil || got != tc.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "256.1.1.1", "1.2.3.4.5", "4294967296", "09.1.1.1", "1.+2.3.4", "a..b", ".a", "[::1%lo]", "[1.2.3.4]"} {
		if got, err := Canonical(in); err == nil {
			t.Errorf("Canonical(%q) = %q; want an error", in, got)
		}
	}
}

// FuzzCanonical: a canonical host is its own canonical form.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"Example.COM.", "0x7f.1", "2130706433", "[::ffff:1.2.3.4]", "1.2.3.256", "0.0x10.010"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Canonical(s)
		if err != nil {
			return
		}
		if again, err := Canonical(c); err != nil || again != c {
			t.Fatalf("Canonical(%q) = %q, but Canonical(%q) = %q, %v", s, c, c, again, err)
		}
	})
}
