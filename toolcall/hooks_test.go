package toolcall

import "testing"

func TestObservableInput(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"file_path":"a/b.go","content":"x"}`, `{"content":"x","file_path":"/proj/a/b.go"}`},
		{`{"file_path":"/abs.go"}`, `{"file_path":"/abs.go"}`},
		{`{"path":"src","pattern":"x"}`, `{"path":"/proj/src","pattern":"x"}`},
		{`{"command":"ls"}`, `{"command":"ls"}`},
		{`not json`, `not json`},
	}
	for _, tt := range tests {
		if got := string(ObservableInput([]byte(tt.in), "/proj")); got != tt.want {
			t.Errorf("ObservableInput(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
