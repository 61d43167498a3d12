package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

type sampleIn struct {
	FilePath string `json:"file_path" jsonschema:"the file"`
	Limit    int    `json:"limit,omitempty"`
	Tags     []struct {
		Name string `json:"name"`
	} `json:"tags,omitempty"`
}

func minimal() Tool {
	return Build(Def[sampleIn]{
		Name: "Sample",
		Call: func(ctx context.Context, in sampleIn, env *Env) (Result, error) {
			return TextResult("read " + in.FilePath), nil
		},
	})
}

func TestBuildDefaultsFailClosed(t *testing.T) {
	tl := minimal()
	in, err := tl.Decode(json.RawMessage(`{"file_path":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if tl.Is(ReadOnly, in) || tl.Is(ConcurrencySafe, in) || tl.Is(Destructive, in) || tl.Is(OpenWorld, in) {
		t.Error("flags must default to false")
	}
	if !tl.IsEnabled() || tl.Spec().Defer || tl.Spec().AlwaysLoad || tl.RequiresUserInteraction() || tl.Spec().MCP {
		t.Error("enabled by default, nothing else")
	}
	if tl.Spec().Interrupt != Block {
		t.Error("interrupt behaviour defaults to block")
	}
	if tl.UserFacingName(in) != "Sample" {
		t.Error("user-facing name defaults to the name")
	}
	pc, err := permission.New(permission.Config{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if d := tl.CheckPermissions(context.Background(), pc, in); d.Behavior != permission.Passthrough {
		t.Errorf("default check = %s, want passthrough", d.Behavior)
	}
	var e permission.Engine
	if d, _ := e.Decide(context.Background(), pc, tl, in); d.Behavior != permission.Ask {
		t.Errorf("a tool without a check must ask, got %s", d.Behavior)
	}
	// Foreign input never panics and keeps the fail-closed answers.
	if tl.Is(ReadOnly, "not the input type") {
		t.Error("foreign input")
	}
}

// TestIsAsksEachTraitsOwnDescription: each trait is answered by the tool's description of that
// trait and no other, and a trait the tool cannot describe (an unknown value) is false.
func TestIsAsksEachTraitsOwnDescription(t *testing.T) {
	is := func(want string) func(sampleIn) bool { return func(in sampleIn) bool { return in.FilePath == want } }
	tl := Build(Def[sampleIn]{
		Name: "T", ReadOnly: is("r"), Destructive: is("d"), ConcurrencySafe: is("c"), OpenWorld: is("o"),
		Call: func(context.Context, sampleIn, *Env) (Result, error) { return Result{}, nil },
	})
	traits := map[Trait]string{ReadOnly: "r", Destructive: "d", ConcurrencySafe: "c", OpenWorld: "o", 0: "", 99: ""}
	for tr, own := range traits {
		for _, path := range []string{"r", "d", "c", "o", ""} {
			want := own != "" && path == own
			if got := tl.Is(tr, sampleIn{FilePath: path}); got != want {
				t.Errorf("Is(%d, %q) = %v, want %v", tr, path, got, want)
			}
		}
	}
}

func TestPanickingPredicateIsFalse(t *testing.T) {
	tl := Build(Def[sampleIn]{
		Name:     "P",
		ReadOnly: func(sampleIn) bool { panic("boom") },
		Call:     func(context.Context, sampleIn, *Env) (Result, error) { return Result{}, nil },
	})
	if tl.Is(ReadOnly, sampleIn{}) {
		t.Fatal("a panicking predicate must answer false")
	}
}

func TestDecodeReportsEveryIssue(t *testing.T) {
	tl := minimal()
	_, err := tl.Decode(json.RawMessage(`{"limit":"ten","extra":1,"tags":[{"name":3}]}`))
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want *InputError", err)
	}
	want := "InputValidationError: Sample failed due to the following issues:\n" +
		"The required parameter `file_path` is missing\n" +
		"An unexpected parameter `extra` was provided\n" +
		"The parameter `limit` type is expected as `integer` but provided as `string`\n" +
		"The parameter `tags[0].name` type is expected as `string` but provided as `integer`"
	if err.Error() != want {
		t.Fatalf("message:\n%s\nwant:\n%s", err.Error(), want)
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		raw     string
		wantErr string
	}{
		{`{"file_path":"a"}`, ""},
		{`{"file_path":"a","limit":3}`, ""},
		{``, "`file_path` is missing"},
		{`[]`, "expected as `object`"},
		{`{"file_path":"a","limit":1.5}`, "expected as `integer` but provided as `number`"},
		{`{"file_path":null}`, "provided as `null`"},
		{`{`, "not valid JSON"},
	}
	for _, tt := range tests {
		_, err := minimal().Decode(json.RawMessage(tt.raw))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("Decode(%s) = %v", tt.raw, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("Decode(%s) = %v, want %q", tt.raw, err, tt.wantErr)
		}
	}
}

func TestRawSchemaTool(t *testing.T) {
	tl := Build(Def[map[string]any]{
		Name:      "mcp__srv__t",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		MCP:       true,
		Call:      func(context.Context, map[string]any, *Env) (Result, error) { return TextResult("ok"), nil },
	})
	if _, err := tl.Decode(json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "`q` is missing") {
		t.Fatalf("raw schema validation: %v", err)
	}
	in, err := tl.Decode(json.RawMessage(`{"q":"x","other":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.(map[string]any)["q"] != "x" {
		t.Fatalf("decoded %v", in)
	}
	if string(tl.Spec().InputSchema) != `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}` {
		t.Fatalf("a raw schema is sent as given: %s", tl.Spec().InputSchema)
	}
}

func TestSchemaInferred(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(minimal().Spec().InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if s["type"] != "object" || s["additionalProperties"] == nil {
		t.Fatalf("schema %v", s)
	}
	req, _ := s["required"].([]any)
	if len(req) != 1 || req[0] != "file_path" {
		t.Fatalf("required = %v", req)
	}
}

func TestBuildPanicsWithoutCall(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Build without Call must panic")
		}
	}()
	Build(Def[sampleIn]{Name: "x"})
}

// TestDecodeFullSchema checks the parts of JSON Schema that MCP servers use and the old
// hand-written subset ignored: combinators, patterns, references and defaults.
func TestDecodeFullSchema(t *testing.T) {
	schema := `{
		"type": "object",
		"$defs": {"id": {"type": "string", "pattern": "^[a-z]+-[0-9]+$"}},
		"properties": {
			"ticket": {"$ref": "#/$defs/id"},
			"target": {"anyOf": [{"type": "string", "format": "uri"}, {"type": "integer", "minimum": 1}]},
			"shape": {"oneOf": [
				{"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"], "additionalProperties": false},
				{"type": "object", "properties": {"w": {"type": "number"}}, "required": ["w"], "additionalProperties": false}
			]},
			"mode": {"type": "string", "enum": ["fast", "slow"], "default": "slow"},
			"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}}
		},
		"required": ["ticket"],
		"additionalProperties": false
	}`
	call := func(context.Context, map[string]any, *Env) (Result, error) { return Result{}, nil }
	// A schema from outside (RawSchema, resolved at build) and one the program stored
	// encoded (SchemaJSON, resolved on first use) must decode alike.
	for _, tl := range []Tool{
		Build(Def[map[string]any]{Name: "mcp__srv__t", RawSchema: json.RawMessage(schema), Call: call}),
		Build(Def[map[string]any]{Name: "Stored", SchemaJSON: json.RawMessage(schema), Call: call}),
	} {
		t.Run(tl.Name(), func(t *testing.T) { checkFullSchema(t, tl) })
	}
}

func checkFullSchema(t *testing.T, tl Tool) {
	tests := []struct {
		raw  string
		want []string // the issues, in order; nil means valid
	}{
		{`{"ticket":"abc-12"}`, nil},
		{`{"ticket":"abc-12","target":"x","shape":{"r":1},"tags":["a","bc"]}`, nil},
		{`{"ticket":"abc-12","target":7}`, nil},
		{`{"ticket":"ABC"}`, []string{"The parameter `ticket` must match the pattern `^[a-z]+-[0-9]+$`"}},
		{`{"ticket":"abc-1","target":0}`, []string{"The parameter `target` does not match any of the allowed forms"}},
		{`{"ticket":"abc-1","shape":{"r":1,"w":2}}`, []string{"The parameter `shape` does not match any of the allowed forms"}},
		{`{"ticket":"abc-1","mode":"medium"}`, []string{"The parameter `mode` must be one of: fast, slow (got medium)"}},
		{`{"ticket":"abc-1","tags":["ok","toolong"]}`, []string{"The parameter `tags[1]` must be at most 3 characters long"}},
		{`{"target":true,"x":1}`, []string{
			"The required parameter `ticket` is missing",
			"An unexpected parameter `x` was provided",
			"The parameter `target` does not match any of the allowed forms",
		}},
	}
	for _, tt := range tests {
		_, err := tl.Decode(json.RawMessage(tt.raw))
		if tt.want == nil {
			if err != nil {
				t.Errorf("Decode(%s) = %v, want valid", tt.raw, err)
			}
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("Decode(%s) = %v, want an *InputError", tt.raw, err)
			continue
		}
		if strings.Join(ie.Issues, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Decode(%s) issues:\n%s\nwant:\n%s", tt.raw, strings.Join(ie.Issues, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	// Defaults are applied before the input reaches the tool.
	in, err := tl.Decode(json.RawMessage(`{"ticket":"abc-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := in.(map[string]any)["mode"]; got != "slow" {
		t.Errorf("mode = %v, want the default slow", got)
	}
}

func TestStoredSchemaIsParsedOnFirstUse(t *testing.T) {
	tl := Build(Def[map[string]any]{
		Name:       "Stored",
		SchemaJSON: json.RawMessage(`{"type":"object","properties":`),
		Call: func(context.Context, map[string]any, *Env) (Result, error) {
			return Result{}, nil
		},
	})
	if got := string(tl.Spec().InputSchema); got != `{"type":"object","properties":` {
		t.Errorf("InputSchema() = %s, want the stored bytes as they are", got)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("decoding against a broken stored schema did not panic")
		}
	}()
	tl.Decode(json.RawMessage(`{}`))
}

func TestNewRejectsBadSchema(t *testing.T) {
	_, err := New(Def[map[string]any]{
		Name:      "mcp__srv__bad",
		RawSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`),
		Call:      func(context.Context, map[string]any, *Env) (Result, error) { return Result{}, nil },
	})
	if err == nil || !strings.Contains(err.Error(), "mcp__srv__bad") {
		t.Fatalf("New with a dangling $ref = %v, want an error naming the tool", err)
	}
}

// TestDecodeKeepsLargeIntegers checks that input is decoded as sent when no default applies:
// a round trip through float64 would change integers beyond 2^53.
func TestDecodeKeepsLargeIntegers(t *testing.T) {
	type bigIn struct {
		N int64 `json:"n"`
	}
	tl := Build(Def[bigIn]{Name: "Big", Call: func(context.Context, bigIn, *Env) (Result, error) { return Result{}, nil }})
	in, err := tl.Decode(json.RawMessage(`{"n":9007199254740993}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := in.(bigIn).N; got != 9007199254740993 {
		t.Errorf("n = %d, want 9007199254740993", got)
	}
}

// BenchmarkDecode measures schema validation of a valid and an invalid input.
func BenchmarkDecode(b *testing.B) {
	tl := minimal()
	for _, in := range []string{`{"file_path":"a/b.go","limit":10,"tags":[{"name":"x"}]}`, `{"limit":"ten","extra":1}`} {
		b.Run(in, func(b *testing.B) {
			for b.Loop() {
				tl.Decode(json.RawMessage(in))
			}
		})
	}
}

// A tool's own cap is DefaultMaxResultChars when unset, and never above it.
func TestMaxResultChars(t *testing.T) {
	for _, tc := range []struct{ def, want int }{
		{NeverPersist, NeverPersist},
		{0, DefaultMaxResultChars},
		{20_000, 20_000},
		{100_000, DefaultMaxResultChars},
	} {
		tl := Build(Def[sampleIn]{Name: "Sample", MaxResultChars: tc.def,
			Call: func(context.Context, sampleIn, *Env) (Result, error) { return Result{}, nil }})
		if got := tl.Spec().MaxResultChars; got != tc.want {
			t.Errorf("Def.MaxResultChars %d: the tool's is %d, want %d", tc.def, got, tc.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1KB", 1536: "1.5KB", 262144: "256KB",
		300000: "293KB", 1 << 20: "1MB", 3_750_000: "3.6MB", 22_334_000: "21.3MB", 1 << 30: "1GB", 1<<30 + 1<<29: "1.5GB",
		5 << 40: "5120GB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
