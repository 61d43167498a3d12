// Drives the reins binary (REINS_BIN) with the real Claude Agent SDK, one scenario per run:
//   node drive.mjs SCENARIO
// The Go test internal/cli/sdk_e2e_test.go starts the scripted fake model API, points
// ANTHROPIC_BASE_URL at it, runs this script in the project folder and checks what the model
// was sent and what happened on disk. This script checks what the SDK saw, prints a JSON
// summary on its last line, and exits non-zero on the first failed check.
import { query, createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';

const scenario = process.argv[2];
const bin = process.env.REINS_BIN;
if (!bin) throw new Error('REINS_BIN is not set');

let stderr = '';
const base = {
  pathToClaudeCodeExecutable: bin,
  cwd: process.cwd(),
  env: { ...process.env },
  stderr: (d) => { stderr += d; },
};

function check(cond, what, extra) {
  if (!cond) {
    console.error(`FAIL ${scenario}: ${what}`);
    if (extra !== undefined) console.error(JSON.stringify(extra, null, 2));
    console.error('reins stderr:\n' + stderr);
    process.exit(1);
  }
}

// run collects every message of a query; an error the SDK throws is kept, not fatal.
async function run(q) {
  const messages = [];
  let error;
  try {
    for await (const m of q) messages.push(m);
  } catch (e) {
    error = e;
  }
  return { messages, error };
}

const results = (ms) => ms.filter((m) => m.type === 'result');
const ofType = (ms, type, subtype) => ms.filter((m) => m.type === type && (!subtype || m.subtype === subtype));

// userTurns yields user messages one at a time, each after the previous turn's result.
function turns(texts, between) {
  let release;
  const gate = { next: () => new Promise((r) => { release = r; }) };
  const gen = (async function* () {
    for (let i = 0; i < texts.length; i++) {
      if (i > 0) {
        await gate.wait;
        if (between) await between(i);
      }
      gate.wait = gate.next();
      yield { type: 'user', message: { role: 'user', content: texts[i] }, parent_tool_use_id: null, session_id: '' };
    }
  })();
  return { gen, turnEnded: () => release && release() };
}

const scenarios = {
  // A read turn: the tool runs without an ask; the SDK sees init, the call, its result and
  // the result message.
  async read() {
    const calls = [];
    const { messages, error } = await run(query({
      prompt: 'What does hello.txt say?',
      options: { ...base, canUseTool: async (name, input) => { calls.push(name); return { behavior: 'deny', message: 'no' }; } },
    }));
    check(!error, 'query failed: ' + error);
    const init = ofType(messages, 'system', 'init')[0];
    check(init && init.tools.includes('Read') && Array.isArray(init.mcp_servers) && init.apiKeySource, 'system/init', init);
    const user = messages.find((m) => m.type === 'user' && m.tool_use_result !== undefined);
    check(user && typeof user.timestamp === 'string', 'a user message with tool_use_result and timestamp', messages);
    const [res] = results(messages);
    check(res && res.subtype === 'success' && res.result === 'It says hello.' && typeof res.total_cost_usd === 'number' &&
      res.stop_reason === 'end_turn' && res.modelUsage && res.usage.server_tool_use, 'success result', res);
    check(calls.length === 0, 'canUseTool was not called for a read', calls);
    return { result: res.result };
  },

  // Extended thinking: the SDK's thinking option reaches reins as --max-thinking-tokens, and
  // the assistant messages carry the thinking blocks with their signatures.
  async thinking() {
    const { messages, error } = await run(query({
      prompt: 'What does hello.txt say?',
      options: { ...base, thinking: { type: 'enabled', budgetTokens: 2048 } },
    }));
    check(!error, 'query failed: ' + error);
    const blocks = messages.filter((m) => m.type === 'assistant').flatMap((m) => m.message.content);
    const thinking = blocks.filter((b) => b.type === 'thinking');
    check(thinking.length === 1 && thinking[0].thinking === 'Read the file.' && thinking[0].signature === 'EqQBsdk==', 'a signed thinking block', blocks);
    const [res] = results(messages);
    check(res && res.subtype === 'success' && res.result === 'It says hello.', 'success result', res);
    return { thinking: thinking.length };
  },

  // An ask answered allow: the call runs.
  async allow() {
    const calls = [];
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: { ...base, canUseTool: async (name, input, opts) => { calls.push({ name, input, id: opts.toolUseID }); return { behavior: 'allow', updatedInput: input }; } },
    }));
    check(!error, 'query failed: ' + error);
    check(calls.length === 1 && calls[0].name === 'Bash' && calls[0].input.command === 'touch out.txt' && calls[0].id, 'one can_use_tool for the Bash call', calls);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { calls: calls.length };
  },

  // An allow that accepts the engine's suggestions: they are saved (the Bash suggestion goes to
  // the local settings file) and the next such call does not ask.
  async persist() {
    const calls = [];
    const { messages, error } = await run(query({
      prompt: 'Create two files',
      options: {
        ...base,
        canUseTool: async (name, input, opts) => {
          calls.push({ name, suggestions: opts.suggestions });
          return { behavior: 'allow', updatedInput: input, updatedPermissions: opts.suggestions };
        },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(calls.length === 1 && Array.isArray(calls[0].suggestions) && calls[0].suggestions.length > 0, 'one ask, with suggestions', calls);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { suggestions: calls[0].suggestions };
  },

  // A sandboxed command connects to a host no rule admits: the sandbox's proxy holds the
  // connection and can_use_tool is asked about SandboxNetworkAccess {host, port}. The first
  // answer allows this connection, the second also accepts the suggestion (a
  // WebFetch(domain:…) allow rule), so the third command is not asked about its host.
  async network() {
    const calls = [];
    const { messages, error } = await run(query({
      prompt: 'Fetch three times',
      options: {
        ...base,
        canUseTool: async (name, input, opts) => {
          calls.push({ name, input, suggestions: opts.suggestions });
          const hostAsks = calls.filter((c) => c.name === 'SandboxNetworkAccess').length;
          if (name === 'SandboxNetworkAccess' && hostAsks === 2) {
            return { behavior: 'allow', updatedInput: input, updatedPermissions: opts.suggestions };
          }
          return { behavior: 'allow', updatedInput: input };
        },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    const hosts = calls.filter((c) => c.name === 'SandboxNetworkAccess');
    check(hosts.length === 2 && hosts.every((c) => c.input.host === '127.0.0.1' && typeof c.input.port === 'number'), 'two asks about the host', calls);
    const rule = hosts[0].suggestions?.[0]?.rules?.[0];
    check(rule && rule.toolName === 'WebFetch' && rule.ruleContent === 'domain:127.0.0.1', 'the suggestion is a WebFetch domain rule', hosts[0].suggestions);
    return { asks: calls.map((c) => c.name) };
  },

  // An ask answered deny: the model gets the message; the SDK sees permission_denied.
  async deny() {
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: { ...base, canUseTool: async () => ({ behavior: 'deny', message: 'not today, thanks' }) },
    }));
    check(!error, 'query failed: ' + error);
    const denied = ofType(messages, 'system', 'permission_denied');
    check(denied.length === 1 && denied[0].tool_name === 'Bash' && denied[0].message === 'not today, thanks', 'system/permission_denied', messages);
    const [res] = results(messages);
    check(res.permission_denials.length === 1, 'the denial is listed in the result', res);
    return { denied: denied.length };
  },

  // An allow that substitutes a command a deny rule forbids: the deny rule wins.
  async updated() {
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: { ...base, canUseTool: async () => ({ behavior: 'allow', updatedInput: { command: 'rm -f keep.txt' } }) },
    }));
    check(!error, 'query failed: ' + error);
    check(ofType(messages, 'system', 'permission_denied').length === 1, 'the substituted call is denied', messages);
    return {};
  },

  // An allow that substitutes a command the engine asks about: the caller is asked again,
  // shown the substitute, and its deny there stands.
  async substituted() {
    const calls = [], reasons = [];
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: {
        ...base,
        canUseTool: async (name, input, opts) => {
          calls.push(input.command);
          reasons.push(opts.decisionReason);
          if (calls.length === 1) {
            return { behavior: 'allow', updatedInput: { command: 'mkdir -p .git/hooks && printf evil > .git/hooks/pre-commit' } };
          }
          return { behavior: 'deny', message: 'not a hook' };
        },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(calls.length === 2 && calls[1].includes('pre-commit'), 'asked again, about the substitute', calls);
    check(/substitut/i.test(reasons[1] ?? '') && /safety/i.test(reasons[1] ?? ''), 'the second can_use_tool says why it asks again', reasons);
    check(ofType(messages, 'system', 'permission_denied').length === 1, 'the substitute is denied', messages);
    return { calls };
  },

  // setPermissionMode between turns changes the next decision: the first Write asks (denied),
  // the second, in acceptEdits, does not.
  async mode() {
    const calls = [];
    const t = turns(['Write a.txt', 'Write b.txt'], async () => { await q.setPermissionMode('acceptEdits'); });
    const q = query({
      prompt: t.gen,
      options: { ...base, canUseTool: async (name) => { calls.push(name); return { behavior: 'deny', message: 'ask me later' }; } },
    });
    const messages = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') {
        if (results(messages).length === 2) break;
        t.turnEnded();
      }
    }
    q.close();
    check(calls.length === 1 && calls[0] === 'Write', 'only the first Write asked', calls);
    check(results(messages).every((r) => r.subtype === 'success'), 'two successes', results(messages));
    return { calls: calls.length };
  },

  // interrupt while a Bash sleep runs: the turn ends with a result, the process goes on.
  async interrupt() {
    const t = turns(['Sleep a while', 'Say hi']);
    const q = query({ prompt: t.gen, options: { ...base, allowedTools: ['Bash(sleep:*)'] } });
    const messages = [];
    let interrupted = false;
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'assistant' && !interrupted && m.message.content.some((b) => b.type === 'tool_use')) {
        interrupted = true;
        // Give the shell time to start the command.
        setTimeout(() => { q.interrupt().catch((e) => { stderr += 'interrupt failed: ' + e; }); }, 700);
      }
      if (m.type === 'result') {
        if (results(messages).length === 2) break;
        t.turnEnded();
      }
    }
    q.close();
    const rs = results(messages);
    check(rs.length === 2 && rs[0].is_error && Array.isArray(rs[0].errors) && rs[1].subtype === 'success', 'an error result for the interrupted turn, then a success', rs);
    return { first: rs[0].subtype };
  },

  // get_context_usage between turns, then a prompt that is /compact: a compact_boundary
  // message (trigger manual), and the next turn goes on from the summary.
  async compact() {
    let usage;
    const t = turns(['hello', '/compact keep the names', 'go on'], async (i) => {
      if (i === 1) usage = await q.getContextUsage();
    });
    const q = query({ prompt: t.gen, options: { ...base } });
    const messages = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') {
        if (results(messages).length === 3) break;
        t.turnEnded();
      }
    }
    q.close();
    const ids = (usage?.categories ?? []).map((c) => c.id);
    check(usage && usage.totalTokens > 0 && usage.maxTokens === 200000 && usage.isAutoCompactEnabled === true &&
      ['system_prompt', 'system_tools', 'messages', 'free_space'].every((id) => ids.includes(id)) &&
      usage.apiUsage && usage.apiUsage.input_tokens === 10, 'get_context_usage', usage);
    const b = ofType(messages, 'system', 'compact_boundary');
    check(b.length === 1 && b[0].compact_metadata.trigger === 'manual' && b[0].compact_metadata.pre_tokens > 0 && b[0].session_id, 'one compact_boundary', b);
    const init = ofType(messages, 'system', 'init')[0];
    check(init.slash_commands.includes('compact'), 'init lists compact', init);
    check(results(messages).every((r) => r.subtype === 'success'), 'three successes', results(messages));
    return { totalTokens: usage.totalTokens };
  },

  // Three turns in one process, each with its result.
  async threeTurns() {
    let spawns = 0;
    const t = turns(['one', 'two', 'three']);
    const q = query({ prompt: t.gen, options: { ...base, onProcessSpawned: () => { spawns++; } } });
    const messages = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') {
        if (results(messages).length === 3) break;
        t.turnEnded();
      }
    }
    q.close();
    const rs = results(messages);
    check(rs.map((r) => r.result).join('|') === 'first|second|third', 'three results', rs);
    check(spawns === 1, 'one process', spawns);
    check(new Set(rs.map((r) => r.session_id)).size === 1, 'one session', rs);
    return { turns: rs.length };
  },

  // maxTurns: 1 ends with error_max_turns, its errors filled in.
  async maxTurns() {
    const { messages, error } = await run(query({ prompt: 'Read hello.txt twice', options: { ...base, maxTurns: 1 } }));
    const [res] = results(messages);
    check(res && res.subtype === 'error_max_turns' && res.errors.length > 0, 'error_max_turns with errors', { res, error: String(error) });
    return { subtype: res.subtype, threw: Boolean(error) };
  },

  // settingSources: [] loads no settings file: the user's allow rule does not apply, so the
  // call asks.
  async settingSources() {
    const calls = [];
    const { error } = await run(query({
      prompt: 'Create out.txt',
      options: { ...base, settingSources: [], canUseTool: async (name) => { calls.push(name); return { behavior: 'deny', message: 'no' }; } },
    }));
    check(!error, 'query failed: ' + error);
    check(calls.length === 1, 'the call asked: the user allow rule was not loaded', calls);
    return { calls: calls.length };
  },

  // Structured output: the SDK's outputFormat passes --json-schema and the schema in
  // initialize; the result carries structured_output.
  async structured() {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const { messages, error } = await run(query({ prompt: 'What is the answer?', options: { ...base, outputFormat: { type: 'json_schema', schema } } }));
    check(!error, 'query failed: ' + error);
    const [res] = results(messages);
    check(res?.subtype === 'success' && res.structured_output?.answer === '42', 'structured_output', res);
    // The turn ends with the valid call: result is the structured output, not a later reply.
    check(res.num_turns === 1 && JSON.parse(res.result).answer === '42', 'the turn ends after StructuredOutput', res);
    return { structured: res.structured_output };
  },

  // Agents from the SDK's options arrive in initialize: the answer lists them, and the Agent
  // tool runs one (the Go test checks the sub-agent's prompt and tools).
  async agents() {
    const q = query({
      prompt: 'Review the code',
      options: {
        ...base,
        agents: { reviewer: { description: 'Reviews code for bugs', prompt: 'You are the SDK reviewer agent.', tools: ['Read', 'Grep'] } },
      },
    });
    const agents = await q.supportedAgents();
    check(agents.some((a) => a.name === 'reviewer' && a.description === 'Reviews code for bugs'), 'initialize lists the SDK agent', agents);
    const { messages, error } = await run(q);
    check(!error, 'query failed: ' + error);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    const init = ofType(messages, 'system', 'init')[0];
    check(init?.agents?.includes('reviewer') && init.agents.includes('Explore'), 'system/init lists the agents', init);
    return { agents: agents.map((a) => a.name) };
  },

  // A PreToolUse hook callback that blocks the Bash call: the call does not run and the model
  // gets the hook's reason.
  async hookDeny() {
    const seen = [], asked = [];
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: {
        ...base,
        canUseTool: async (name, input) => { asked.push(name); return { behavior: 'allow', updatedInput: input }; },
        hooks: {
          PreToolUse: [{
            matcher: 'Bash',
            hooks: [async (input, toolUseID) => {
              seen.push({ event: input.hook_event_name, tool: input.tool_name, command: input.tool_input?.command, toolUseID });
              return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'blocked by the SDK hook' } };
            }],
          }],
        },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(seen.length === 1 && seen[0].event === 'PreToolUse' && seen[0].tool === 'Bash' && seen[0].command === 'touch out.txt' && seen[0].toolUseID, 'one hook callback for the Bash call', seen);
    check(asked.length === 0, 'canUseTool was not asked', asked);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { callbacks: seen.length };
  },

  // A PreToolUse hook callback that allows a call a deny rule stops: the deny rule wins, and
  // canUseTool is never asked.
  async hookAllowUnderDeny() {
    const seen = [], asked = [];
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: {
        ...base,
        canUseTool: async (name, input) => { asked.push(name); return { behavior: 'allow', updatedInput: input }; },
        hooks: {
          PreToolUse: [{
            hooks: [async (input) => {
              seen.push(input.tool_name);
              return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'the SDK hook says yes' } };
            }],
          }],
        },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(seen.length === 1 && seen[0] === 'Bash', 'the hook callback ran', seen);
    check(asked.length === 0, 'canUseTool was not asked', asked);
    const denied = ofType(messages, 'system', 'permission_denied');
    check(denied.length === 1, 'system/permission_denied for the call', messages);
    return { callbacks: seen.length };
  },

  // A PermissionRequest hook callback answers the ask of a session without canUseTool: the
  // call runs.
  async hookPermissionRequest() {
    const seen = [];
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: {
        ...base,
        hooks: {
          PermissionRequest: [{
            matcher: 'Bash',
            hooks: [async (input) => {
              seen.push({ event: input.hook_event_name, tool: input.tool_name });
              return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };
            }],
          }],
        },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(seen.length === 1 && seen[0].event === 'PermissionRequest' && seen[0].tool === 'Bash', 'one PermissionRequest callback', seen);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { callbacks: seen.length };
  },

  // An MCP server's request for input reaches onElicitation as an elicitation control
  // request; its answer goes back to the server (the Go test checks the tool's result).
  async elicit() {
    const seen = [];
    const { messages, error } = await run(query({
      prompt: 'Ask me my name',
      options: {
        ...base,
        mcpServers: { srv: { command: process.env.REINS_TEST_MCP_BIN, env: { REINS_TEST_MCP_SERVER: 'basic' } } },
        allowedTools: ['mcp__srv__ask'],
        onElicitation: async (req) => { seen.push(req); return { action: 'accept', content: { name: 'Ada' } }; },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(seen.length === 1 && seen[0].serverName === 'srv' && seen[0].message === 'What is your name?' &&
      seen[0].requestedSchema?.properties?.name, 'one elicitation from srv with its schema', seen);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { elicitations: seen.length };
  },

  // Partial messages: the text streams as stream_event lines.
  async partial() {
    const { messages, error } = await run(query({ prompt: 'hi', options: { ...base, includePartialMessages: true } }));
    check(!error, 'query failed: ' + error);
    const events = messages.filter((m) => m.type === 'stream_event').map((m) => m.event.type);
    check(events[0] === 'message_start' && events.includes('content_block_delta') && events.at(-1) === 'message_stop', 'stream events', events);
    // message_start carries the API's own message id (the assistant message's) and its usage.
    const start = messages.find((m) => m.type === 'stream_event' && m.event.type === 'message_start').event.message;
    const assistant = messages.find((m) => m.type === 'assistant').message;
    check(start.id && start.id === assistant.id && start.usage.input_tokens === 10, 'message_start has the message id and usage', { start, assistant });
    return { events: events.length };
  },

  // Control requests: model change, settings, MCP status, an unsupported subtype, rewind_files
  // without checkpoints. The prompt is held back until they are answered, so the input stays
  // open.
  async control() {
    let ready;
    const held = new Promise((r) => { ready = r; });
    const prompt = (async function* () {
      await held;
      yield { type: 'user', message: { role: 'user', content: 'hi' }, parent_tool_use_id: null, session_id: '' };
    })();
    const q = query({ prompt, options: { ...base } });
    const settings = await q.getSettings();
    check(settings && settings.effective && Array.isArray(settings.sources), 'get_settings', settings);
    const mcp = await q.mcpServerStatus();
    check(Array.isArray(mcp) && mcp.length === 0, 'mcp_status', mcp);
    await q.setModel('claude-haiku-4-5');
    let unsupported;
    try { await q.reconnectMcpServer('x'); } catch (e) { unsupported = String(e); }
    check(unsupported && unsupported.includes('unsupported control request subtype'), 'an unsupported subtype is an error', unsupported);
    const rewind = await q.rewindFiles('x');
    check(rewind && rewind.canRewind === false && /not enabled/.test(rewind.error), 'rewind_files without enableFileCheckpointing', rewind);
    ready();
    for await (const m of q) {
      if (m.type === 'result') break;
    }
    q.close();
    return {};
  },

  // A PreToolUse hook that stops rm, beside a SessionEnd hook reins refuses: the initialize
  // request is refused, so no turn runs and the rm never happens (the Go test checks the file
  // and that the model was never asked). The SDK gets error results naming the request, or
  // an error when reins exits non-zero.
  async hookBesideRefused() {
    const seen = [];
    const { messages, error } = await run(query({
      prompt: 'Remove keep.txt',
      options: {
        ...base,
        allowedTools: ['Bash(rm:*)'],
        hooks: {
          SessionEnd: [{ hooks: [async () => ({})] }],
          PreToolUse: [{
            matcher: 'Bash',
            hooks: [async (input) => {
              seen.push(input.tool_input?.command);
              return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no rm' } };
            }],
          }],
        },
      },
    }));
    const rs = results(messages);
    const told = rs.some((r) => r.is_error && r.errors.join(' ').includes('the initialize request was refused')) ||
      String(error).includes('initialize');
    check(told, 'an error naming the refused initialize', { rs, error: String(error) });
    check(rs.every((r) => r.is_error), 'no successful turn', rs);
    return { results: rs.length, threw: Boolean(error), seen };
  },

  // mcpServersDelivery 'initialize': the stdio server comes in the initialize request, starts
  // with the session as an --mcp-config one would, and its tool runs under an allow rule.
  async mcpInitialize() {
    const q = query({
      prompt: 'Echo something',
      options: {
        ...base,
        mcpServersDelivery: 'initialize',
        mcpServers: { everything: { command: 'node', args: [process.env.REINS_TEST_MCP_EVERYTHING] } },
        allowedTools: ['mcp__everything__echo'],
      },
    });
    const init = await q.initializationResult();
    check(init.mcp_servers_applied === true, 'mcp_servers_applied', init);
    const status = await q.mcpServerStatus();
    check(status.some((s) => s.name === 'everything' && s.status === 'connected'), 'mcp_status lists the server connected', status);
    const { messages, error } = await run(q);
    check(!error, 'query failed: ' + error);
    const sys = ofType(messages, 'system', 'init')[0];
    check(sys.mcp_servers.some((s) => s.name === 'everything' && s.status === 'connected') && sys.tools.includes('mcp__everything__echo'),
      'system/init lists the server and its tool', sys);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { servers: status.length };
  },

  // The plugins option, delivered as REINS_TEST_PLUGIN_DELIVERY says ('argv': --plugin-dir
  // flags; 'initialize': the initialize request under --await-initialize): the plugin's command
  // is in system/init's slash_commands and its agent among the agents.
  async plugins() {
    const delivery = process.env.REINS_TEST_PLUGIN_DELIVERY;
    const q = query({
      prompt: 'Say hello',
      options: { ...base, plugins: [{ type: 'local', path: process.env.REINS_TEST_PLUGIN }], pluginDelivery: delivery },
    });
    const init = await q.initializationResult();
    if (delivery === 'initialize') check(init.plugins_applied === true, 'plugins_applied', init);
    check(init.commands.some((c) => c.name === 'kit:hello') && init.agents.some((a) => a.name === 'kit:reviewer'),
      'initialize lists the plugin\'s command and agent', init);
    const { messages, error } = await run(q);
    check(!error, 'query failed: ' + error);
    const sys = ofType(messages, 'system', 'init')[0];
    check(sys.slash_commands.includes('kit:hello') && sys.agents.includes('kit:reviewer') &&
      sys.plugins.some((p) => p.name === 'kit'), 'system/init lists the plugin, its command and its agent', sys);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { delivery, commands: sys.slash_commands };
  },

  // An in-process server (createSdkMcpServer) whose tool an allow rule covers: its calls
  // travel as mcp_message requests and the handler runs without an ask.
  async sdkMcpAllow() {
    const { calls, server } = localServer();
    const asked = [];
    const { messages, error } = await run(query({
      prompt: 'Echo hi',
      options: { ...base, mcpServers: { local: server }, allowedTools: ['mcp__local__x'],
        canUseTool: async (name) => { asked.push(name); return { behavior: 'deny', message: 'no' }; } },
    }));
    check(!error, 'query failed: ' + error);
    const init = ofType(messages, 'system', 'init')[0];
    check(init?.tools?.includes('mcp__local__x') && init.mcp_servers?.some((s) => s.name === 'local' && s.status === 'connected'), 'system/init lists the server and its tool', init);
    check(calls.length === 1 && calls[0].text === 'hi', 'the handler ran once with the input', calls);
    check(asked.length === 0, 'canUseTool was not asked', asked);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { calls: calls.length };
  },

  // The same server under a deny rule for its tool: the handler never runs.
  async sdkMcpDeny() {
    const { calls, server } = localServer();
    const { messages, error } = await run(query({
      prompt: 'Echo hi',
      options: { ...base, mcpServers: { local: server }, canUseTool: async (name, input) => ({ behavior: 'allow', updatedInput: input }) },
    }));
    check(!error, 'query failed: ' + error);
    check(calls.length === 0, 'the denied tool did not run', calls);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { calls: calls.length };
  },

  // A PreToolUse hook callback beside an in-process server: the server's tool runs, and the
  // hook still stops rm.
  async sdkMcpHook() {
    const { calls, server } = localServer();
    const seen = [];
    const { messages, error } = await run(query({
      prompt: 'Echo hi, then remove keep.txt',
      options: {
        ...base, mcpServers: { local: server }, allowedTools: ['mcp__local__x'],
        canUseTool: async (name, input) => ({ behavior: 'allow', updatedInput: input }),
        hooks: {
          PreToolUse: [{
            matcher: 'Bash',
            hooks: [async (input) => {
              seen.push(input.tool_input?.command);
              if (/\brm\b/.test(input.tool_input?.command ?? '')) {
                return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'rm is blocked by the SDK hook' } };
              }
              return {};
            }],
          }],
        },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(calls.length === 1, 'the in-process tool ran', calls);
    check(seen.length === 1 && seen[0] === 'rm -f keep.txt', 'the hook saw the rm', seen);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { calls: calls.length, hooks: seen.length };
  },

  // An agent defined with mcpServers and maxTurns: its sub-agent gets the named server's tools
  // only and stops after its turns (the Go test checks what the sub-agent was offered and the
  // Agent call's result).
  async agentMcpMaxTurns() {
    const server = (mode) => ({ command: process.env.REINS_TEST_MCP_BIN, env: { REINS_TEST_MCP_SERVER: mode } });
    const q = query({
      prompt: 'Look it up',
      options: {
        ...base,
        mcpServers: { docs: server('basic'), other: server('basic') },
        allowedTools: ['mcp__docs__echo'],
        agents: { lookup: { description: 'Looks things up in the docs', prompt: 'You are the SDK lookup agent.', mcpServers: ['docs'], maxTurns: 1 } },
      },
    });
    const agents = await q.supportedAgents();
    check(agents.some((a) => a.name === 'lookup'), 'initialize accepted the agent', agents);
    const { messages, error } = await run(q);
    check(!error, 'query failed: ' + error);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    const sub = messages.filter((m) => m.type === 'assistant' && m.parent_tool_use_id);
    check(sub.length === 1, 'one assistant message of the sub-agent', sub);
    return { subMessages: sub.length };
  },

  // A refused agent field fails the session closed: the initialize request is refused and no
  // turn runs (the Go test checks the model was never asked).
  async agentRefusedField() {
    const { messages, error } = await run(query({
      prompt: 'Look it up',
      options: { ...base, agents: { lookup: { description: 'd', prompt: 'p', skills: ['pdf'] } } },
    }));
    const rs = results(messages);
    const told = rs.some((r) => r.is_error && r.errors.join(' ').includes('"skills" cannot be honoured')) ||
      String(error).includes('initialize');
    check(told, 'an error naming the refused field', { rs, error: String(error) });
    check(rs.every((r) => r.is_error), 'no successful turn', rs);
    return { results: rs.length, threw: Boolean(error) };
  },

  // A call an Explore sub-agent was denied is in the result's permission_denials, naming the
  // sub-agent (the Go test scripts the model).
  async subAgentDenial() {
    const { messages, error } = await run(query({ prompt: 'Remove keep.txt', options: { ...base } }));
    check(!error, 'query failed: ' + error);
    const [res] = results(messages);
    const d = res?.permission_denials?.find((x) => x.tool_name === 'Bash');
    check(d && d.tool_input?.command === 'rm -f keep.txt' && d.agent_type === 'Explore' && d.parent_tool_use_id,
      "the sub-agent's denial in permission_denials", res);
    return { denials: res.permission_denials.length };
  },

  // File checkpointing: one message whose turn edits a.go and runs rm -rf src (the Go test
  // scripts the model); a dry rewind to it lists the files, a real one puts them back.
  async rewind() {
    const uuid = '6f1c2b1e-3d4a-4e5f-8a9b-0c1d2e3f4a5b';
    let done;
    const ended = new Promise((r) => { done = r; });
    const prompt = (async function* () {
      yield { type: 'user', message: { role: 'user', content: 'Change a.go and remove src' }, parent_tool_use_id: null, session_id: '', uuid };
      await ended;
    })();
    const q = query({ prompt, options: { ...base, enableFileCheckpointing: true,
      canUseTool: async (name, input) => ({ behavior: 'allow', updatedInput: input }) } });
    const messages = [];
    let dry, real;
    for await (const m of q) {
      messages.push(m);
      if (m.type !== 'result') continue;
      check(m.subtype === 'success', 'success', m);
      dry = await q.rewindFiles(uuid, { dryRun: true });
      real = await q.rewindFiles(uuid);
      done();
    }
    const want = ['a.go', 'src/.env', 'src/lib/util.go', 'src/main.go'];
    const rel = (r) => (r.filesChanged || []).map((p) => p.slice(process.cwd().length + 1)).sort();
    check(dry && dry.canRewind && JSON.stringify(rel(dry)) === JSON.stringify(want) && dry.skippedLinks === undefined, 'the dry run lists the files', dry);
    check(real && real.canRewind && JSON.stringify(rel(real)) === JSON.stringify(want) && real.skippedLinks === 0 &&
      real.insertions === dry.insertions && real.deletions === dry.deletions && real.insertions > 0, 'the rewind puts them back', real);
    const unknown = await (async () => { try { return await q.rewindFiles('00000000-0000-4000-8000-000000000000'); } catch (e) { return { threw: String(e) }; } })();
    return { dry, real, unknown };
  },

  // An allow whose updatedInput the caller wrote itself, which only "no rule allows it" would
  // ask about: it runs, and the caller is not asked about its own substitute.
  async substitutedAllowed() {
    const calls = [];
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: {
        ...base,
        canUseTool: async (name, input) => {
          calls.push(input.command);
          return { behavior: 'allow', updatedInput: { command: 'touch other.txt', description: 'Create other.txt' } };
        },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(calls.length === 1, 'asked once: the caller approved what it wrote', calls);
    check(ofType(messages, 'system', 'permission_denied').length === 0, 'nothing denied', messages);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { calls };
  },

  // Plan mode, then ExitPlanMode approved: a system/status message says the mode is default.
  async planExit() {
    const { messages, error } = await run(query({
      prompt: 'Plan it, then do it',
      options: { ...base, permissionMode: 'plan', canUseTool: async (name, input) => ({ behavior: 'allow', updatedInput: input }) },
    }));
    check(!error, 'query failed: ' + error);
    const status = ofType(messages, 'system', 'status');
    check(status.some((m) => m.permissionMode === 'default' && m.uuid && m.session_id), 'system/status with permissionMode default', messages.map((m) => [m.type, m.subtype]));
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { status: status.map((m) => m.permissionMode) };
  },

  // resumeSessionAt: two turns, then a resumed query at the first reply's uuid: the model sees
  // the first turn only (the Go test checks the request).
  async resumeAt() {
    const t = turns(['one', 'two']);
    const q = query({ prompt: t.gen, options: { ...base } });
    const messages = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') {
        if (results(messages).length === 2) break;
        t.turnEnded();
      }
    }
    q.close();
    const first = messages.find((m) => m.type === 'assistant');
    const sessionId = results(messages)[0].session_id;
    const again = await run(query({ prompt: 'three', options: { ...base, resume: sessionId, resumeSessionAt: first.uuid } }));
    check(!again.error, 'the resumed query failed: ' + again.error);
    const [res] = results(again.messages);
    check(res?.subtype === 'success' && res.result === 'third', 'the resumed turn', res);
    return { at: first.uuid };
  },

  // A PostToolUse callback answering continue: false: the turn ends as a success whose
  // terminal_reason is hook_stopped, and the SDK does not throw.
  async hookStopped() {
    const seen = [];
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: {
        ...base,
        allowedTools: ['Bash(touch:*)'],
        hooks: { PostToolUse: [{ hooks: [async (input) => { seen.push(input.hook_event_name); return { continue: false, stopReason: 'enough for today' }; }] }] },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(seen.length === 1, 'the PostToolUse callback ran', seen);
    const [res] = results(messages);
    check(res?.subtype === 'success' && !res.is_error && res.terminal_reason === 'hook_stopped', 'success with terminal_reason hook_stopped', res);
    return { terminal: res.terminal_reason };
  },

  // A PreToolUse callback's systemMessage reaches the stream as a system message.
  async hookSystemMessage() {
    const { messages, error } = await run(query({
      prompt: 'Create out.txt',
      options: {
        ...base,
        allowedTools: ['Bash(touch:*)'],
        hooks: { PreToolUse: [{ hooks: [async () => ({ systemMessage: 'touching files is watched' })] }] },
      },
    }));
    check(!error, 'query failed: ' + error);
    const sys = messages.filter((m) => m.type === 'system' && JSON.stringify(m).includes('touching files is watched'));
    check(sys.length === 1 && sys[0].subtype === 'informational' && sys[0].content === 'touching files is watched', 'one system message with the hook\'s systemMessage', messages);
    return { subtype: sys[0].subtype };
  },

  // A SubagentStop callback is called when the sub-agent finishes.
  async subagentStop() {
    const seen = [];
    const { messages, error } = await run(query({
      prompt: 'Review the code',
      options: {
        ...base,
        agents: { reviewer: { description: 'Reviews code for bugs', prompt: 'You are the SDK reviewer agent.', tools: ['Read'] } },
        hooks: { SubagentStop: [{ hooks: [async (input) => { seen.push(input.hook_event_name); return {}; }] }] },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(seen.length === 1 && seen[0] === 'SubagentStop', 'one SubagentStop callback', seen);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { callbacks: seen.length };
  },

  // A SessionStart callback is accepted and called; its context reaches the model (the Go
  // test checks the request).
  async sessionStart() {
    const seen = [];
    const { messages, error } = await run(query({
      prompt: 'hi',
      options: {
        ...base,
        hooks: { SessionStart: [{ hooks: [async (input) => {
          seen.push(input.source);
          return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'context from the SDK SessionStart' } };
        }] }] },
      },
    }));
    check(!error, 'query failed: ' + error);
    check(seen.length === 1 && seen[0] === 'startup', 'one SessionStart callback, source startup', seen);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { callbacks: seen.length };
  },

  // continue: true on a session whose last reply reported 190,000 input tokens: it is
  // compacted before its first request (the Go test checks the requests).
  async continued() {
    const { messages, error } = await run(query({ prompt: 'go on', options: { ...base, continue: true } }));
    check(!error, 'query failed: ' + error);
    const b = ofType(messages, 'system', 'compact_boundary');
    check(b.length === 1 && b[0].compact_metadata.trigger === 'auto' && b[0].compact_metadata.pre_tokens >= 190000, 'one automatic compact_boundary', b);
    check(results(messages)[0]?.subtype === 'success', 'success', results(messages));
    return { pre: b[0].compact_metadata.pre_tokens };
  },
};

// localServer is the in-process server "local" with one tool, x, that echoes its text.
function localServer() {
  const calls = [];
  const server = createSdkMcpServer({
    name: 'local', version: '1.0.0',
    tools: [tool('x', 'Echoes its text.', { text: z.string() }, async (args) => {
      calls.push(args);
      return { content: [{ type: 'text', text: 'x says ' + args.text }] };
    })],
  });
  return { calls, server };
}

const fn = scenarios[scenario];
if (!fn) throw new Error(`unknown scenario ${scenario}; have ${Object.keys(scenarios).join(', ')}`);
const t0 = Date.now();
const summary = await fn();
console.log(JSON.stringify({ scenario, ok: true, ms: Date.now() - t0, ...summary }));
