package client

import "testing"

func TestResourcePath(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///home/u/project/.env": "/home/u/project/.env",
		"config://app/.env":           "/app/.env",
		"secrets://vault/../id_rsa":   "/id_rsa",
		"test://greeting":             "/greeting",
		"urn:x:.npmrc":                "/x:.npmrc",
		"%zz":                         "/%zz",
	} {
		if got := resourcePath(uri); got != want {
			t.Errorf("resourcePath(%q) = %q, want %q", uri, got, want)
		}
	}
}
