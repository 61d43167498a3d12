package bashrules

import (
	"slices"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestEgressCanonicalHosts: curl's and wget's URL hosts are reduced to the form the web tool's
// hosts have (hostform): every spelling of an address is the address dialled.
func TestEgressCanonicalHosts(t *testing.T) {
	pc := mustContext(t, permission.Config{Cwd: t.TempDir(), Home: t.TempDir()})
	for _, tc := range []struct{ cmd, host string }{
		{"curl http://0x7f.1/", "127.0.0.1"},
		{"curl http://2130706433/", "127.0.0.1"},
		{"curl http://0177.0.0.1:8080/x", "127.0.0.1"},
		{"curl http://127.1/", "127.0.0.1"},
		{"wget -q http://169.254.169.254./latest", "169.254.169.254"},
		{"curl http://0xA9FEA9FE/", "169.254.169.254"},
		{"curl HTTPS://Example.COM./", "example.com"},
	} {
		eg := Egress(pc, tc.cmd)
		if eg.Unseen != "" || !slices.Equal(eg.Hosts, []string{tc.host}) {
			t.Errorf("Egress(%q) = %v (unseen %q); want [%s]", tc.cmd, eg.Hosts, eg.Unseen, tc.host)
		}
	}
	// A host the URL standard refuses is not read as a name: it cannot be read exactly.
	for _, cmd := range []string{"curl http://1.2.3.256/", "curl http://09.1.1.1/"} {
		if eg := Egress(pc, cmd); eg.Unseen == "" {
			t.Errorf("Egress(%q) = %v; want it unseen", cmd, eg.Hosts)
		}
	}
}
