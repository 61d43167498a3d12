// The stdio twin of bench.mjs's in-process server "local": the same tool x, served by the same
// MCP TypeScript SDK over standard input and output, so bench/sdk.sh compares only the
// transports.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'local', version: '1.0.0' });
server.tool('x', 'Echoes its text.', { text: z.string() }, async (args) => ({ content: [{ type: 'text', text: 'x says ' + args.text }] }));
await server.connect(new StdioServerTransport());
