package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// A decision entry keeps who decided — the kind, the person's front end, the hook, the setting,
// the rule with its file:line:col — and the policy version, in one line of the log.
func TestDecisionEntryLine(t *testing.T) {
	l := openTest(t, Options{})
	e := Entry{Kind: KindDecision, Session: "s1", Tool: "Edit", ToolUseID: "toolu_1", Mode: "default", Decision: "allow",
		Reason: "other: approved in the permission dialog", DecidedBy: "person", FrontEnd: "chat", PolicyVersion: "12"}
	if err := l.Append(e, json.RawMessage(`{"file_path":"/p/a.go"}`)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	got := regexp.MustCompile(`"time":"[^"]*"`).ReplaceAllString(sc.Text(), `"time":"T"`)
	const want = `{"seq":1,"prev":"0000000000000000000000000000000000000000000000000000000000000000","time":"T","kind":"decision",` +
		`"session":"s1","tool":"Edit","toolUseId":"toolu_1","mode":"default","decision":"allow","reason":"other: approved in the permission dialog",` +
		`"decidedBy":"person","frontEnd":"chat","inputSha256":"H","policyVersion":"12"}`
	// The input's hash is checked elsewhere (TestInputsAreHashedUnlessAsked).
	got = regexp.MustCompile(`"inputSha256":"[0-9a-f]{64}"`).ReplaceAllString(got, `"inputSha256":"H"`)
	if got != want {
		t.Errorf("line\n got %s\nwant %s", got, want)
	}
}
