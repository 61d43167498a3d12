// A stdio MCP server (newline-delimited JSON-RPC, no dependencies) for the mcp_tool hook
// tests. Its tools answer as a policy service would:
//   check   {command}: a PreToolUse deny for a command that contains "rm", {} otherwise
//   broken  {}: a result marked isError
//   chatty  {}: text that is not hook JSON
import { createInterface } from "node:readline";

const tools = ["check", "broken", "chatty"].map((name) => ({
  name,
  description: `hook policy tool ${name}`,
  inputSchema: { type: "object", properties: { command: { type: "string" } } },
}));

function call(name, args) {
  switch (name) {
    case "check":
      if (String(args.command ?? "").includes("rm")) {
        return { content: [{ type: "text", text: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: `policy server refuses: ${args.command}` } }) }] };
      }
      return { content: [{ type: "text", text: "{}" }] };
    case "broken":
      return { content: [{ type: "text", text: "the policy database is down" }], isError: true };
    case "chatty":
      return { content: [{ type: "text", text: "Looks fine to me!" }] };
  }
  return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
}

const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const m = JSON.parse(line);
  if (m.id === undefined) return; // notifications
  switch (m.method) {
    case "initialize":
      return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hookpolicy", version: "1.0.0" } } });
    case "tools/list":
      return send({ jsonrpc: "2.0", id: m.id, result: { tools } });
    case "tools/call":
      return send({ jsonrpc: "2.0", id: m.id, result: call(m.params.name, m.params.arguments ?? {}) });
    case "ping":
      return send({ jsonrpc: "2.0", id: m.id, result: {} });
  }
  send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `no method ${m.method}` } });
});
