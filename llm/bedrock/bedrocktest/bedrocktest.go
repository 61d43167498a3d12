// Package bedrocktest is a fake Amazon Bedrock runtime endpoint in front of an llmtest fake:
// it checks each request as Bedrock would (the path, the body's envelope, a Signature Version 4
// that verifies with the test's credentials or the Bedrock API key) and streams the scripted
// answer back in Bedrock's binary event-stream encoding.
package bedrocktest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/reinsdev/reins/llm/internal/sse"
	"github.com/reinsdev/reins/llm/llmtest"
)

// Credentials are what the fake accepts: a key pair whose signatures it verifies, or a bearer
// token (a Bedrock API key).
type Credentials struct {
	AccessKeyID, SecretAccessKey, Region string
	BearerToken                          string
}

// NewServer starts the fake in front of api; it is closed when the test ends.
func NewServer(t testing.TB, api *llmtest.Server, creds Credentials) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		model, ok := strings.CutPrefix(r.URL.Path, "/model/")
		model, ok2 := strings.CutSuffix(model, "/invoke-with-response-stream")
		if r.Method != http.MethodPost || !ok || !ok2 || model == "" {
			bedrockError(w, http.StatusNotFound, "UnknownOperationException", "no such operation: "+r.Method+" "+r.URL.Path)
			return
		}
		if msg := authenticate(r, body, creds); msg != "" {
			bedrockError(w, http.StatusForbidden, "AccessDeniedException", msg)
			return
		}
		var env struct {
			Version string           `json:"anthropic_version"`
			Model   *json.RawMessage `json:"model"`
			Stream  *json.RawMessage `json:"stream"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Version != "bedrock-2023-05-31" || env.Model != nil || env.Stream != nil {
			bedrockError(w, http.StatusBadRequest, "ValidationException", fmt.Sprintf("malformed input request: anthropic_version %q, model and stream must not be in the body", env.Version))
			return
		}
		rec := api.Forward(r, model, body)
		if rec.Code != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		w.WriteHeader(http.StatusOK)
		if err := reencode(w, rec.Body); err != nil {
			t.Errorf("bedrocktest: %v", err)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// authenticate returns why r is refused, or "".
func authenticate(r *http.Request, body []byte, c Credentials) string {
	auth := r.Header.Get("Authorization")
	if c.BearerToken != "" && auth == "Bearer "+c.BearerToken {
		return ""
	}
	params, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok || c.AccessKeyID == "" {
		return "missing or unsupported Authorization"
	}
	var signed []string
	for _, p := range strings.Split(params, ", ") {
		if v, ok := strings.CutPrefix(p, "SignedHeaders="); ok {
			signed = strings.Split(v, ";")
		}
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return "bad X-Amz-Date"
	}
	sum := sha256.Sum256(body)
	if r.Header.Get("X-Amz-Content-Sha256") != "" && r.Header.Get("X-Amz-Content-Sha256") != hex.EncodeToString(sum[:]) {
		return "the body does not match its signed hash"
	}
	// Sign the same request again, with only the headers the client signed, and compare.
	u := &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	again, _ := http.NewRequestWithContext(context.Background(), r.Method, u.String(), bytes.NewReader(body))
	for _, h := range signed {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	cred := aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), cred, again, hex.EncodeToString(sum[:]), "bedrock", c.Region, when); err != nil {
		return err.Error()
	}
	if again.Header.Get("Authorization") != auth {
		return "The request signature we calculated does not match the signature you provided."
	}
	return ""
}

// reencode turns the first-party event stream into Bedrock's: each event a "chunk" whose
// payload holds the event's JSON in base64, an error event an exception message.
func reencode(w http.ResponseWriter, first io.Reader) error {
	enc := eventstream.NewEncoder()
	sr := sse.NewReader(first, sse.Options{})
	for {
		name, data, err := sr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var msg eventstream.Message
		switch string(name) {
		case "ping":
			continue
		case "error":
			var e struct {
				Error struct{ Type, Message string } `json:"error"`
			}
			json.Unmarshal(data, &e)
			kind := "internalServerException"
			if e.Error.Type == "overloaded_error" {
				kind = "throttlingException"
			}
			msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
			msg.Headers.Set(":exception-type", eventstream.StringValue(kind))
			msg.Payload, _ = json.Marshal(map[string]string{"message": e.Error.Message})
		default:
			msg.Headers.Set(":message-type", eventstream.StringValue("event"))
			msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
			msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			msg.Payload, _ = json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(data)})
		}
		if err := enc.Encode(w, msg); err != nil {
			return err
		}
		http.NewResponseController(w).Flush()
	}
}

func bedrockError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", kind)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"message": msg})
}
