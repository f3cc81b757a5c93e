// MCP tasks through the bridge's expose face (the demo agent's "echo"
// tool, which declares task support). Driven by flow_test.go.
//
// 2025-11-25: the official MCP TypeScript client's task API
// (client.experimental.tasks) creates, follows, reads and cancels tasks.
// 2026-07-28: the TypeScript client (1.x) does not speak this revision, so
// the script sends its messages itself (fetch): a tools/call that declares
// the io.modelcontextprotocol/tasks extension, tasks/get polling until the
// result arrives inline, tasks/update and tasks/cancel.
//
// Environment: MCP_URL (the /mcp endpoint), MCP_TOOL (default "echo").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

const url = process.env.MCP_URL;
const tool = process.env.MCP_TOOL ?? 'echo';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function connect() {
  const client = new Client({ name: 'bridge-interop-tasks', version: '0.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

test('2025-11-25: a task-augmented call is created, followed to its result, and read back', async () => {
  const client = await connect();
  try {
    const seen = [];
    let result;
    let taskId;
    const stream = client.experimental.tasks.callToolStream({ name: tool, arguments: { message: '/slow 1' } }, CallToolResultSchema, { task: { ttl: 60_000 } });
    for await (const msg of stream) {
      seen.push(msg.type);
      if (msg.type === 'taskCreated') taskId = msg.task.taskId;
      if (msg.type === 'result') result = msg.result;
      if (msg.type === 'error') assert.fail(`task stream error: ${msg.error}`);
    }
    assert.equal(seen[0], 'taskCreated', `stream: ${seen}`);
    assert.equal(seen.at(-1), 'result', `stream: ${seen}`);
    assert.ok(taskId);
    assert.equal(result.isError ?? false, false);
    assert.equal(result.structuredContent.state, 'completed');
    const task = await client.experimental.tasks.getTask(taskId);
    assert.equal(task.status, 'completed');
    const again = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(again.structuredContent.state, 'completed');
  } finally {
    await client.close();
  }
});

test('2025-11-25: tasks/cancel cancels a running task', async () => {
  const client = await connect();
  try {
    const created = await client.request({ method: 'tools/call', params: { name: tool, arguments: { message: '/slow 30' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const id = created.task.taskId;
    assert.equal(created.task.status, 'working');
    // Once the agent's task is bound, the cancel reaches the agent too.
    for (let i = 0; i < 600; i++) {
      const t = await client.experimental.tasks.getTask(id);
      if (t._meta?.['io.a2a-mcp-bridge/upstream']?.a2aTaskId) break;
      await sleep(20);
    }
    const cancelled = await client.experimental.tasks.cancelTask(id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await client.experimental.tasks.getTask(id)).status, 'cancelled');
  } finally {
    await client.close();
  }
});

// rpc26 sends one 2026-07-28 request: the era's _meta (protocol version,
// client info, capabilities with the tasks extension) and headers.
let nextID = 1;
async function rpc26(method, params, { tasks = true } = {}) {
  const caps = tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {};
  const body = {
    jsonrpc: '2.0', id: nextID++, method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bridge-interop-tasks', version: '0.0.0' },
        'io.modelcontextprotocol/clientCapabilities': caps,
      },
    },
  };
  const headers = {
    'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method,
  };
  const name = params.taskId ?? params.name;
  if (name) headers['Mcp-Name'] = name;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  let text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    text = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).filter((d) => d.includes('"id"')).at(-1);
  }
  return JSON.parse(text);
}

async function pollUntil(taskId, done) {
  for (let i = 0; i < 600; i++) {
    const r = await rpc26('tasks/get', { taskId });
    assert.ok(r.result, `tasks/get: ${JSON.stringify(r)}`);
    assert.equal(r.result.resultType, 'complete');
    if (done(r.result)) return r.result;
    await sleep(Math.min(r.result.pollIntervalMs ?? 100, 100));
  }
  assert.fail(`task ${taskId} never got there`);
}

test('2026-07-28: the call runs as a task, tasks/get returns the result inline', async () => {
  const disc = await rpc26('server/discover', {});
  assert.ok(disc.result.capabilities.extensions['io.modelcontextprotocol/tasks'], JSON.stringify(disc));
  const created = await rpc26('tools/call', { name: tool, arguments: { message: '/slow 1' } });
  assert.equal(created.result.resultType, 'task', JSON.stringify(created));
  assert.equal(created.result.status, 'working');
  assert.ok(created.result.taskId && created.result.createdAt && created.result.ttlMs > 0);
  const id = created.result.taskId;
  const ack = await rpc26('tasks/update', { taskId: id, inputResponses: {} });
  assert.deepEqual(Object.keys(ack.result).sort(), ['_meta', 'resultType']);
  const done = await pollUntil(id, (t) => t.status !== 'working');
  assert.equal(done.status, 'completed');
  assert.equal(done.result.structuredContent.state, 'completed');
  assert.match(done.result.content.map((c) => c.text ?? '').join('\n'), /./);
});

test('2026-07-28: tasks/cancel is acknowledged and the task ends cancelled; errors are the spec\'s', async () => {
  const created = await rpc26('tools/call', { name: tool, arguments: { message: '/slow 30' } });
  const id = created.result.taskId;
  await pollUntil(id, (t) => t._meta?.['io.a2a-mcp-bridge/upstream']?.a2aTaskId);
  const ack = await rpc26('tasks/cancel', { taskId: id });
  assert.equal(ack.result.resultType, 'complete');
  assert.equal(ack.result.taskId, undefined);
  const t = await pollUntil(id, (x) => x.status !== 'working');
  assert.equal(t.status, 'cancelled');
  assert.equal((await rpc26('tasks/get', { taskId: 'no-such-task' })).error.code, -32602);
  assert.equal((await rpc26('tasks/get', { taskId: id }, { tasks: false })).error.code, -32021);
  assert.equal((await rpc26('tasks/result', { taskId: id })).error.code, -32601);
  const sync = await rpc26('tools/call', { name: tool, arguments: { message: 'hi' } }, { tasks: false });
  assert.notEqual(sync.result.resultType, 'task');
  assert.match(sync.result.content[0].text, /hi/);
});

test('2026-07-28: subscriptions/listen with the task id carries notifications/tasks up to the result', async () => {
  const created = await rpc26('tools/call', { name: tool, arguments: { message: '/slow 1' } });
  const id = created.result.taskId;
  const ctl = new AbortController();
  const res = await fetch(url, {
    method: 'POST', signal: ctl.signal,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen' },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen',
      params: {
        notifications: { taskIds: [id] },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bridge-interop-tasks', version: '0.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
        },
      },
    }),
  });
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const methods = [];
  let done;
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of res.body) {
      buf += decoder.decode(chunk, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const ev = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = ev.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('');
        if (!data) continue;
        const msg = JSON.parse(data);
        methods.push(msg.method);
        assert.equal(msg.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
        if (msg.method === 'notifications/subscriptions/acknowledged') assert.deepEqual(msg.params.notifications.taskIds, [id]);
        if (msg.method === 'notifications/tasks' && msg.params.status === 'completed') done = msg.params;
      }
      if (done) break;
    }
  } finally {
    ctl.abort();
  }
  assert.equal(methods[0], 'notifications/subscriptions/acknowledged');
  assert.ok(done, `no completed notification: ${methods}`);
  assert.equal(done.taskId, id);
  assert.equal(done.result.structuredContent.state, 'completed');
});
