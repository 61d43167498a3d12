// Measures the SDK protocol's costs with the real Agent SDK driving REINS_BIN (or any CLI)
// against a fake model API (ANTHROPIC_BASE_URL): the time from process start to the
// initialize response, and the per-turn overhead (a turn's wall time minus the time the CLI
// says it spent waiting for the model). Prints one JSON line per run; bench/sdk.sh runs it and
// prints medians.
// With BENCH_MCP=sdk every turn calls tool x of an in-process server (createSdkMcpServer);
// with BENCH_MCP=stdio the same tool of echo-server.mjs over stdio.
//   node bench.mjs RUNS TURNS
import { query, createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] || 5);
const turns = Number(process.argv[3] || 5);
const bin = process.env.REINS_BIN;

// mcpOptions are the servers and rules of BENCH_MCP's mode.
function mcpOptions() {
  const allowedTools = ['Read', 'mcp__local__x'];
  switch (process.env.BENCH_MCP) {
    case 'sdk':
      return { allowedTools, mcpServers: { local: createSdkMcpServer({ name: 'local', version: '1.0.0',
        tools: [tool('x', 'Echoes its text.', { text: z.string() }, async (args) => ({ content: [{ type: 'text', text: 'x says ' + args.text }] }))] }) } };
    case 'stdio':
      return { allowedTools, mcpServersDelivery: 'argv', mcpServers: { local: { command: process.execPath, args: [fileURLToPath(new URL('echo-server.mjs', import.meta.url))] } } };
  }
  return { allowedTools: ['Read'] };
}

for (let r = 0; r < runs; r++) {
  let release;
  let gate = new Promise((res) => { release = res; });
  const prompt = (async function* () {
    for (let i = 0; i < turns; i++) {
      await gate;
      gate = new Promise((res) => { release = res; });
      yield { type: 'user', message: { role: 'user', content: `turn ${i}` }, parent_tool_use_id: null, session_id: '' };
    }
  })();
  let spawned;
  const t0 = performance.now();
  const q = query({
    prompt,
    options: {
      pathToClaudeCodeExecutable: bin, cwd: process.cwd(), env: { ...process.env }, ...mcpOptions(),
      onProcessSpawned: () => { spawned = performance.now(); },
    },
  });
  await q.initializationResult();
  const initMs = performance.now() - (spawned ?? t0);
  const perTurn = [];
  let sent = performance.now();
  release();
  let calls = 0;
  for await (const m of q) {
    if (m.type === 'user' && m.tool_use_result !== undefined && !m.message?.content?.some?.((b) => b.is_error)) calls++;
    if (m.type !== 'result') continue;
    const wall = performance.now() - sent;
    perTurn.push({ wall, api: m.duration_api_ms, overhead: wall - m.duration_api_ms });
    if (perTurn.length === turns) break;
    sent = performance.now();
    release();
  }
  q.close();
  console.log(JSON.stringify({ run: r, initMs, calls, turns: perTurn }));
}
