package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"pgregory.net/rapid"

	"github.com/reinsdev/reins/llm"
)

// captureTransport keeps the body of the request it is given and fails it, so that the
// SDK's encoding of a request is had without a server.
type captureTransport struct{ body []byte }

var errCaptured = errors.New("captured")

func (c *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.body, _ = io.ReadAll(r.Body)
	r.Body.Close()
	return nil, errCaptured
}

// sdkBody is the body the SDK sends for req, through Messages.NewStreaming.
func sdkBody(t *rapid.T, req *llm.Request) ([]byte, error) {
	params, opts, err := sdkParams(req)
	if err != nil {
		return nil, err
	}
	capture := &captureTransport{}
	client := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithMaxRetries(0),
		option.WithBaseURL("http://api.test"), option.WithHTTPClient(&http.Client{Transport: capture}))
	stream := client.Messages.NewStreaming(context.Background(), params, opts...)
	for stream.Next() {
	}
	stream.Close()
	if capture.body == nil {
		return nil, stream.Err()
	}
	return capture.body, nil
}

// textGen draws strings with what JSON encoders treat specially: HTML characters, U+2028
// and U+2029, invalid UTF-8, control characters, quotes and backslashes.
func textGen() *rapid.Generator[string] {
	special := rapid.SampledFrom([]string{"<", ">", "&", "\u2028", "\u2029", "\xff", "\xed\xa0\x80", "\x00", "\x1f", "\x7f",
		"\"", "\\", "\n", "\r", "\t", "\b", "\f", "é", "😀", "</script>", ""})
	rawBytes := rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 8), func(b []byte) string { return string(b) }) // UTF-8 or not
	part := rapid.OneOf(rapid.String(), special, rawBytes)
	return rapid.Custom(func(t *rapid.T) string {
		return strings.Join(rapid.SliceOfN(part, 0, 4).Draw(t, "parts"), "")
	})
}

// jsonGen draws JSON texts as a model's tool input may be: objects, arrays, scalars, null,
// white space between tokens, escapes, HTML characters (each also alone, so that every one
// must be found to be escaped) and invalid UTF-8 inside strings.
func jsonGen() *rapid.Generator[json.RawMessage] {
	odd := rapid.SampledFrom([]string{`{}`, `null`, `[]`, `1e3`, `-0.5E-2`, `"s\u2028"`, `true`,
		"{ \"a\" : \"<&>\" ,\n\t\"b\" : [ 1 , 2 ] }", `{"k":"\ud800"}`, "{\"raw\":\"\xff\u2028\"}", `"<\/script>"`, ` {"x":{"y":{"z":null}}} `,
		`{"amp":"a&b"}`, `["x>y"]`, "\"\u2029\""})
	value := rapid.Custom(func(t *rapid.T) json.RawMessage {
		v := map[string]any{
			textGen().Draw(t, "key"): textGen().Draw(t, "value"),
			"n":                      rapid.Float64().Draw(t, "n"),
			"list":                   []any{rapid.Int().Draw(t, "i"), rapid.Bool().Draw(t, "b"), nil},
		}
		b, err := json.MarshalIndent(v, rapid.SampledFrom([]string{"", " "}).Draw(t, "prefix"), rapid.SampledFrom([]string{"", "\t", "  "}).Draw(t, "indent"))
		if err != nil {
			t.Skip("float not encodable")
		}
		return b
	})
	return rapid.OneOf(rapid.Map(odd, func(s string) json.RawMessage { return json.RawMessage(s) }), value)
}

func blockGen(inResult bool) *rapid.Generator[llm.Block] {
	return rapid.Custom(func(t *rapid.T) llm.Block {
		kinds := []llm.BlockType{llm.BlockText, llm.BlockImage, llm.BlockToolUse, llm.BlockToolResult, llm.BlockThinking, llm.BlockRedactedThinking}
		if inResult {
			kinds = kinds[:2]
		}
		switch rapid.SampledFrom(kinds).Draw(t, "kind") {
		case llm.BlockThinking:
			return llm.Thinking(textGen().Draw(t, "thinking"), textGen().Draw(t, "signature"))
		case llm.BlockRedactedThinking:
			return llm.RedactedThinking(textGen().Draw(t, "redacted"))
		case llm.BlockText:
			return llm.Text(textGen().Draw(t, "text"))
		case llm.BlockImage:
			return llm.Image(rapid.SampledFrom([]string{"image/png", "image/jpeg", "", "image/<x>"}).Draw(t, "media"), textGen().Draw(t, "data"))
		case llm.BlockToolUse:
			b := llm.Block{Type: llm.BlockToolUse, ID: textGen().Draw(t, "id"), Name: textGen().Draw(t, "name")}
			if rapid.Bool().Draw(t, "hasInput") {
				b.Input = jsonGen().Draw(t, "input")
			}
			return b
		default:
			var content []llm.Block
			if rapid.IntRange(0, 4).Draw(t, "nilContent") > 0 {
				content = rapid.SliceOfN(blockGen(true), 0, 3).Draw(t, "content")
			}
			return llm.ToolResult(textGen().Draw(t, "toolUseID"), content, rapid.Bool().Draw(t, "isError"))
		}
	})
}

func requestGen() *rapid.Generator[*llm.Request] {
	return rapid.Custom(func(t *rapid.T) *llm.Request {
		req := &llm.Request{
			Model:     rapid.OneOf(rapid.SampledFrom([]string{"claude-x", ""}), textGen()).Draw(t, "model"),
			MaxTokens: rapid.IntRange(1, 1<<20).Draw(t, "maxTokens"),
			Cache:     rapid.SampledFrom([]llm.CacheMode{llm.CacheAuto, llm.CacheOff}).Draw(t, "cache"),
		}
		for range rapid.IntRange(0, 5).Draw(t, "messages") {
			m := llm.Message{Role: rapid.SampledFrom([]llm.Role{llm.RoleUser, llm.RoleAssistant}).Draw(t, "role")}
			if rapid.IntRange(0, 5).Draw(t, "nilBlocks") > 0 {
				m.Content = rapid.SliceOfN(blockGen(false), 0, 4).Draw(t, "blocks")
			}
			req.Messages = append(req.Messages, m)
		}
		for range rapid.IntRange(0, 3).Draw(t, "system") {
			req.System = append(req.System, llm.SystemBlock{Text: textGen().Draw(t, "sys"), CacheBreakpoint: rapid.Bool().Draw(t, "bp")})
		}
		for range rapid.IntRange(0, 3).Draw(t, "tools") {
			tool := llm.ToolSpec{Name: textGen().Draw(t, "toolName"), Description: textGen().Draw(t, "desc")}
			if rapid.Bool().Draw(t, "schema") {
				tool.InputSchema = jsonGen().Draw(t, "schema")
			}
			req.Tools = append(req.Tools, tool)
		}
		switch rapid.IntRange(0, 2).Draw(t, "stops") {
		case 1:
			req.StopSequences = []string{}
		case 2:
			req.StopSequences = rapid.SliceOfN(textGen(), 1, 3).Draw(t, "stopSeqs")
		}
		if rapid.Bool().Draw(t, "temp") {
			temp := rapid.SampledFrom([]float64{1, rapid.Float64Range(0, 1).Draw(t, "temperature")}).Draw(t, "temp1")
			req.Temperature = &temp
		}
		if rapid.Bool().Draw(t, "think") {
			// Mostly budgets the API takes; some it refuses (under 1024, not below max tokens).
			req.ThinkingBudget = rapid.OneOf(rapid.IntRange(1024, 1<<20), rapid.IntRange(-1, 2000)).Draw(t, "thinkingBudget")
		}
		return req
	})
}

// TestRequestBodyMatchesSDKProperty: for random requests the body is byte for byte the one
// the SDK encodes, or both refuse the request.
func TestRequestBodyMatchesSDKProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		req := requestGen().Draw(t, "request")
		p := New(Options{})
		// Twice from one provider: the second request reuses the cached static part.
		for range 2 {
			got, err := p.requestBody(req)
			want, wantErr := sdkBody(t, req)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("error %v, the SDK's %v", err, wantErr)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("body differs from the SDK's\n got: %q\nwant: %q", got, want)
			}
		}
	})
}

// FuzzAppendString: appendString writes what json.Marshal writes for any string.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href='x'>&amp;</a>", "\u2028\u2029", "\xff\xfe", "\x00\x1f\x7f", "\"\\\b\f\n\r\t", "é😀", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, json.Marshal gives %s", s, got, want)
		}
	})
}
