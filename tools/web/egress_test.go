package web

import (
	"slices"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestEgressIsTheHost: a fetch sends to its URL's host (lower-cased, without port or trailing
// dot); a URL that does not parse sends somewhere unknown.
func TestEgressIsTheHost(t *testing.T) {
	f := New(Options{})
	for url, want := range map[string]string{
		"https://API.Example.com./x?k=v": "api.example.com",
		"http://127.0.0.1:8080/":         "127.0.0.1",
		"https://user@evil.example/":     "",
		"not a url":                      "",
	} {
		eg := f.Egress(t.Context(), nil, Input{URL: url, Prompt: "p"})
		switch {
		case want == "" && eg.Unseen == "":
			t.Errorf("%s: %+v, want an unseen destination", url, eg)
		case want != "" && (eg.Unseen != "" || !slices.Equal(eg.Hosts, []string{want})):
			t.Errorf("%s: %+v, want %s", url, eg, want)
		}
	}
	var _ permission.Sender = f
}
