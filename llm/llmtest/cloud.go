package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
)

// Forward answers a cloud platform's request (Amazon Bedrock, Google Vertex AI) as the
// first-party API answers the same request: body is the platform's, without the model and with
// its anthropic_version, and model is what the platform's URL named. The platform fakes
// (bedrocktest, vertextest) check their own envelope and authentication, then turn the
// recorded answer into their wire format; the scripted turns and the recorded requests are
// this Server's, so a test reads them as it always does.
func (s *Server) Forward(r *http.Request, model string, body []byte) *httptest.ResponseRecorder {
	var fields map[string]json.RawMessage
	rec := httptest.NewRecorder()
	if err := json.Unmarshal(body, &fields); err != nil {
		anthropicError(rec, http.StatusBadRequest, "invalid_request_error", "invalid JSON body: "+err.Error(), "", 0)
		return rec
	}
	delete(fields, "anthropic_version")
	fields["model"], _ = json.Marshal(model)
	fields["stream"] = json.RawMessage("true")
	first, _ := json.Marshal(fields)
	req := r.Clone(r.Context())
	req.URL.Path, req.URL.RawPath = "/v1/messages", ""
	req.Body = io.NopCloser(bytes.NewReader(first))
	req.ContentLength = int64(len(first))
	s.ServeHTTP(rec, req)
	return rec
}
