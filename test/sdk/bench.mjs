// Measures the SDK protocol's costs with the real Agent SDK driving REINS_BIN (or any CLI)
// against a fake model API (ANTHROPIC_BASE_URL): the time from process start to the
// initialize response, and the per-turn overhead (a turn's wall time minus the time the CLI
// says it spent waiting for the model). Prints one JSON line per run; bench/sdk.sh runs it and
// prints medians.
//   node bench.mjs RUNS TURNS
import { query } from '@anthropic-ai/claude-agent-sdk';

const runs = Number(process.argv[2] || 5);
const turns = Number(process.argv[3] || 5);
const bin = process.env.REINS_BIN;

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
      pathToClaudeCodeExecutable: bin, cwd: process.cwd(), env: { ...process.env }, allowedTools: ['Read'],
      onProcessSpawned: () => { spawned = performance.now(); },
    },
  });
  await q.initializationResult();
  const initMs = performance.now() - (spawned ?? t0);
  const perTurn = [];
  let sent = performance.now();
  release();
  for await (const m of q) {
    if (m.type !== 'result') continue;
    const wall = performance.now() - sent;
    perTurn.push({ wall, api: m.duration_api_ms, overhead: wall - m.duration_api_ms });
    if (perTurn.length === turns) break;
    sent = performance.now();
    release();
  }
  q.close();
  console.log(JSON.stringify({ run: r, initMs, turns: perTurn }));
}
