package client

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server built on the go-sdk, so tests run real
// processes: REINS_TEST_MCP_SERVER selects what it does.
func TestMain(m *testing.M) {
	if mode := os.Getenv("REINS_TEST_MCP_SERVER"); mode != "" {
		runTestServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func args(req *mcp.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

func runTestServer(mode string) {
	switch mode {
	case "child":
		runChild()
	case "hang-start":
		select {} // never answers initialize
	case "fail-start":
		fmt.Fprintln(os.Stderr, "starting")
		fmt.Fprintln(os.Stderr, "fatal: GITHUB_TOKEN is not set")
		os.Exit(1)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	obj := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "pattern": "^[a-z ]+$"}}, "required": []any{"text"}}
	empty := map[string]any{"type": "object"}
	switch {
	case strings.HasPrefix(mode, "many:"):
		n, _ := strconv.Atoi(strings.TrimPrefix(mode, "many:"))
		for i := range n {
			name := fmt.Sprintf("tool_%03d", i)
			desc := fmt.Sprintf("Synthetic tool number %d that frobnicates widgets of kind %d with a long description to take space in the prompt.", i, i)
			if i == 137 {
				desc = "Looks up the weather forecast for a city."
			}
			srv.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text(name + " says " + fmt.Sprint(args(req)["text"])), nil
				})
		}
	case mode == "schemas":
		addSchemaTools(srv)
	case mode == "crash-once":
		addCrashOnceTools(srv)
	case mode == "names":
		for _, name := range []string{"short", "get.x", "get_x", "b__c", "c", strings.Repeat("very_long_tool_name_", 15) + "end.of.it"} {
			srv.AddTool(&mcp.Tool{Name: name, Description: "Named " + name, InputSchema: empty},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("ran " + name), nil
				})
		}
	default:
		desc := os.Getenv("REINS_TEST_ECHO_DESC")
		if desc == "" {
			desc = "Echoes the text back."
		}
		srv.AddTool(&mcp.Tool{Name: "echo", Description: desc, InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("echo: " + fmt.Sprint(args(req)["text"])), nil
			})
		srv.AddTool(&mcp.Tool{Name: "write.file", Description: "Writes something.", InputSchema: empty},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("written"), nil })
		srv.AddTool(&mcp.Tool{Name: "big", Description: "Returns a lot.", InputSchema: empty, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text(strings.Repeat("abcdefghij", 20_000)), nil
			})
		srv.AddTool(&mcp.Tool{Name: "bad_schema", Description: "Has a schema that does not resolve.",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/missing"}}}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("never"), nil })
		srv.AddTool(&mcp.Tool{Name: "crash", Description: "Exits the server.", InputSchema: empty},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { os.Exit(3); return nil, nil })
		srv.AddTool(&mcp.Tool{Name: "hang", Description: "Never answers.", InputSchema: empty},
			func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				<-ctx.Done()
				time.Sleep(time.Hour)
				return nil, nil
			})
		srv.AddTool(&mcp.Tool{Name: "structured", Description: "Returns structured content only.", InputSchema: empty},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"answer": 42}}, nil
			})
		srv.AddTool(&mcp.Tool{Name: "mixed", Description: "Returns an image and a resource link.", InputSchema: empty},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{
					&mcp.ImageContent{Data: []byte("PNG"), MIMEType: "image/png"},
					&mcp.ResourceLink{URI: "file:///tmp/x.txt", Name: "x.txt", MIMEType: "text/plain"},
				}}, nil
			})
		// Requests for input go the 2026 protocol's way (SEP-2322): the result asks, and the
		// client calls again with the answers.
		srv.AddTool(&mcp.Tool{Name: "ask", Description: "Asks the person for a name.", InputSchema: empty},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if r, ok := req.Params.InputResponses["q"]; ok {
					res, _ := r.(*mcp.ElicitResult)
					if res == nil {
						return text(fmt.Sprintf("unexpected answer %T", r)), nil
					}
					return text(fmt.Sprintf("action=%s name=%v", res.Action, res.Content["name"])), nil
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Mode: "form", Message: "What is your name?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, nil
			})
		srv.AddTool(&mcp.Tool{Name: "roots", Description: "Lists the client's roots.", InputSchema: empty, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				r, ok := req.Params.InputResponses["r"]
				if !ok {
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"r": &mcp.ListRootsParams{}}}, nil
				}
				res, _ := r.(*mcp.ListRootsResult)
				if res == nil {
					return text(fmt.Sprintf("unexpected answer %T", r)), nil
				}
				var uris []string
				for _, r := range res.Roots {
					uris = append(uris, r.URI)
				}
				return text(strings.Join(uris, " ")), nil
			})
		srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{
			{Name: "name", Description: "Who to greet", Required: true}, {Name: "style", Description: "How"}}},
			func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				a := req.Params.Arguments
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
					{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Say hello to %s.", a["name"])}},
					{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Style: %s", a["style"])}},
				}}, nil
			})
		srv.AddResource(&mcp.Resource{URI: "test://greeting", Name: "greeting", MIMEType: "text/plain"},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://greeting", Text: "hello from a resource"}}}, nil
			})
	}
	startShutdownWatch()
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	atEOF()
}

var syscallZero = syscall.Signal(0)

// addSchemaTools serves tools whose schemas loop or nest too deeply (validating a call of one
// used to overflow the stack and end Reins) beside a legitimate recursive one.
func addSchemaTools(srv *mcp.Server) {
	var deep any = map[string]any{"type": "string"}
	for range 80 {
		deep = map[string]any{"type": "object", "properties": map[string]any{"a": deep}}
	}
	schemas := map[string]any{
		"self_ref": map[string]any{"type": "object", "$ref": "#"},
		"mutual": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/x"}},
			"$defs": map[string]any{"x": map[string]any{"anyOf": []any{map[string]any{"$ref": "#/$defs/y"}}}, "y": map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/x"}}}}},
		"deep": deep,
		"tree": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"},
			"children": map[string]any{"type": "array", "items": map[string]any{"$ref": "#"}}}, "required": []any{"name"}},
	}
	for name, schema := range schemas {
		srv.AddTool(&mcp.Tool{Name: name, Description: "A tool with an unusual schema.", InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text(name + " ran"), nil
			})
	}
}

// addCrashOnceTools serves echo and boom, which ends the first process it runs in. Every start
// is logged to REINS_TEST_STARTS; a restarted process takes a moment before it answers, so
// that calls arrive while the restart runs.
func addCrashOnceTools(srv *mcp.Server) {
	marker := os.Getenv("REINS_TEST_MARKER")
	if f, err := os.OpenFile(os.Getenv("REINS_TEST_STARTS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	if _, err := os.Stat(marker); err == nil {
		time.Sleep(300 * time.Millisecond)
	}
	obj := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	srv.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes.", InputSchema: obj},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("echo: " + fmt.Sprint(args(req)["text"])), nil
		})
	srv.AddTool(&mcp.Tool{Name: "boom", Description: "Ends the first process.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
				f.Close()
				os.Exit(3)
			}
			return text("boom survived"), nil
		})
}
