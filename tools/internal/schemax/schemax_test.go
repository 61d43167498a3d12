package schemax

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type in struct {
	Name  string   `json:"name" jsonschema:"the name"`
	Count *int     `json:"count,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Mode  string   `json:"mode,omitempty"`
	Sub   *struct {
		On *bool `json:"on,omitempty"`
	} `json:"sub,omitempty"`
}

func TestFor(t *testing.T) {
	s := For[in](func(s *jsonschema.Schema) {
		Enum(s.Properties["mode"], "a", "b")
		Default(s.Properties["mode"], "a")
		s.Properties["count"].Minimum = Ptr(0.0)
	})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","required":["name"],"properties":{"count":{"type":"integer","minimum":0},"mode":{"type":"string","default":"a","enum":["a","b"]},"name":{"type":"string","description":"the name"},"sub":{"type":"object","properties":{"on":{"type":"boolean"}},"additionalProperties":false},"tags":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`
	var got, exp any
	json.Unmarshal(b, &got)
	json.Unmarshal([]byte(want), &exp)
	gb, _ := json.Marshal(got)
	eb, _ := json.Marshal(exp)
	if string(gb) != string(eb) {
		t.Errorf("schema\n got %s\nwant %s", gb, eb)
	}
}
