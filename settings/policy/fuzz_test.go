package policy

import (
	"crypto/ed25519"
	"testing"
)

// FuzzVerify: any document and signature are judged without a panic, and only a document
// signed with the key, with a positive policyVersion, is accepted.
func FuzzVerify(f *testing.F) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	f.Add([]byte(`{"policyVersion": 1}`), ed25519.Sign(priv, []byte(`{"policyVersion": 1}`)))
	f.Add([]byte(`{"policyVersion": -1}`), []byte("x"))
	f.Add([]byte(`[]`), make([]byte, 64))
	f.Fuzz(func(t *testing.T, doc, sig []byte) {
		r, err := verify(doc, sig, pub)
		if err != nil {
			return
		}
		raw, _ := parseSignature(sig)
		if !ed25519.Verify(pub, doc, raw) || r.Version <= 0 {
			t.Fatalf("accepted %q with %x", doc, sig)
		}
	})
}
