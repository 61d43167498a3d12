// Package vertextest is a fake Google Vertex AI endpoint in front of an llmtest fake, with the
// OAuth token endpoint a service account's credentials file names: the token endpoint checks
// the service account's signed JWT assertion and issues an access token, and the prediction
// endpoint accepts only that token, checks the path and the body's envelope, and streams the
// scripted answer (Vertex streams the API's own events).
package vertextest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// Server is the fake: URL is ANTHROPIC_VERTEX_BASE_URL, CredentialsFile a service account's
// key file for GOOGLE_APPLICATION_CREDENTIALS whose token endpoint is this server.
type Server struct {
	URL             string
	CredentialsFile string
	Project, Region string
	key             *rsa.PrivateKey
	token           string
}

// NewServer starts the fake in front of api for project and region; it is closed when the
// test ends.
func NewServer(t testing.TB, api *llmtest.Server, project, region string) *Server {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Project: project, Region: region, key: key, token: "ya29.vertextest"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", s.serveToken)
	mux.HandleFunc("POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{call}", func(w http.ResponseWriter, r *http.Request) {
		s.servePredict(w, r, api)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	s.CredentialsFile = filepath.Join(t.TempDir(), "service-account.json")
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	sa, _ := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     project,
		"private_key_id": "vertextest",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "reins@" + project + ".iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      hs.URL + "/token",
	})
	if err := os.WriteFile(s.CredentialsFile, sa, 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// serveToken is the OAuth 2 JWT-bearer grant: the assertion must be signed by the service
// account's key.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	if r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	if err := s.verify(r.Form.Get("assertion")); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":"invalid_grant","error_description":%q}`, err.Error()), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, s.token)
}

func (s *Server) verify(jwt string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("assertion is not a JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&s.key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("assertion signature: %w", err)
	}
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if !strings.Contains(string(claims), "cloud-platform") {
		return fmt.Errorf("assertion asks for no cloud-platform scope: %s", claims)
	}
	return nil
}

func (s *Server) servePredict(w http.ResponseWriter, r *http.Request, api *llmtest.Server) {
	model, ok := strings.CutSuffix(r.PathValue("call"), ":streamRawPredict")
	switch {
	case r.Header.Get("Authorization") != "Bearer "+s.token:
		googleError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
		return
	case !ok || r.PathValue("project") != s.Project || r.PathValue("region") != s.Region:
		googleError(w, http.StatusNotFound, "NOT_FOUND", "no such model or location: "+r.URL.Path)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var env struct {
		Version string           `json:"anthropic_version"`
		Model   *json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Version != "vertex-2023-10-16" || env.Model != nil {
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("anthropic_version %q; the model belongs in the URL", env.Version))
		return
	}
	model, _ = url.PathUnescape(model)
	rec := api.Forward(r, model, body)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

func googleError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q}}`, status, msg, kind)
}
