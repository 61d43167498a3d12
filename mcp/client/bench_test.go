package client

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReadUserFile reads the MCP servers of a ~/.claude.json the size a long-used one
// reaches (a few hundred projects, each with its history), as every start-up does.
func BenchmarkReadUserFile(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"numStartups": 412, "mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}, "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}, "projects": {`)
	cwd := "/home/me/src/p150"
	for i := range 300 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "\n  %q: {\"allowedTools\": [], \"history\": [", fmt.Sprintf("/home/me/src/p%d", i))
		for j := range 20 {
			if j > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, `{"display": "fix the failing test in package %d, then run it again \"twice\"", "pastedContents": {}}`, j)
		}
		sb.WriteString(`], "mcpServers": {"local": {"command": "./bin/server", "env": {"K": "v"}}}, "enabledMcpjsonServers": ["a"], "hasTrustDialogAccepted": true}`)
	}
	sb.WriteString("\n}}\n")
	name := filepath.Join(b.TempDir(), ".claude.json")
	if err := os.WriteFile(name, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		user, local, err := readUserFile(name, cwd, &approvals{})
		if err != nil || len(user) != 2 || len(local) != 1 {
			b.Fatalf("user %d, local %d, %v", len(user), len(local), err)
		}
	}
}
