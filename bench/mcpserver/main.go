// Command mcpserver is a small MCP server with one tool (echo) for bench/mcpexit.sh: the same
// server for reins and for Claude Code, in each way a server can end.
//
//	mcpserver -mode stdio        # over standard input and output; exits at end of input
//	mcpserver -mode stdio-stay   # the same, but keeps running at end of input (a timer, a
//	                             # watcher: as the reference server-everything does)
//	mcpserver -mode http         # streamable HTTP; prints its URL on the first line
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoInput struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

func main() {
	mode := flag.String("mode", "stdio", "stdio, stdio-stay or http")
	flag.Parse()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	switch *mode {
	case "stdio", "stdio-stay":
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Print(err)
		}
		if *mode == "stdio-stay" {
			select {}
		}
	case "http":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("http://%s/mcp\n", ln.Addr())
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		log.Fatal(http.Serve(ln, h))
	default:
		log.Fatalf("unknown mode %q", *mode)
	}
}
