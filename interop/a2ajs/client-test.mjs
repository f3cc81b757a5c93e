// Interop tests: the @a2a-js/sdk 1.0 client against an A2A 1.0 server.
//
// The agent under test must implement the demo behaviour described in
// server.mjs (echo, /interview, /slow N, /fail, /message). Every scenario runs
// once per binding, each time with a client that can only speak that binding.
//
// Usage:
//   A2A_BASE_URL=http://127.0.0.1:8080/a2a/echo node --test client-test.mjs
//   node client-test.mjs http://127.0.0.1:8080/a2a/echo   (direct run; argument wins)
//
// The agent card is fetched from <base>/.well-known/agent-card.json.
// A2A_BINDINGS=JSONRPC or HTTP+JSON restricts the run to one binding;
// A2A_BINDINGS=GRPC runs the SDK's gRPC client (@a2a-js/sdk/client/grpc on
// @grpc/grpc-js) against the card's GRPC interface. A2A_TENANT is sent as
// every request's tenant (default: the GRPC interface's tenant on gRPC,
// none otherwise).

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

const argBase = process.argv.slice(2).find((a) => /^https?:\/\//.test(a));
const base = (argBase || process.env.A2A_BASE_URL || '').replace(/\/+$/, '');
if (!base) {
  console.error('client-test: set A2A_BASE_URL or pass the base URL as an argument');
  process.exit(2);
}
const cardUrl = `${base}/.well-known/agent-card.json`;

const bindings = {
  JSONRPC: () => new JsonRpcTransportFactory(),
  'HTTP+JSON': () => new RestTransportFactory(),
  GRPC: () => new GrpcTransportFactory(),
};
const selected = (process.env.A2A_BINDINGS || 'JSONRPC,HTTP+JSON').split(',').map((s) => s.trim());

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const TIMEOUT = 30_000;

function textPart(text) {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

function userMessage(text, { taskId = '', contextId = '' } = {}) {
  return {
    messageId: crypto.randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

// tenant is the tenant of the binding under test (see A2A_TENANT).
let tenant = '';

function sendRequest(message, configuration) {
  return { tenant, message, configuration, metadata: undefined };
}

function texts(parts) {
  return (parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value);
}

function artifactTexts(task) {
  return (task.artifacts ?? []).flatMap((a) => texts(a.parts));
}

function isTask(result) {
  return result && typeof result === 'object' && 'status' in result && 'id' in result;
}

function stateName(s) {
  return TaskState[s] ?? String(s);
}

// Reads events from a stream, returning a compact trace [{kind, state?, text?}].
function describeEvent(ev) {
  const p = ev.payload;
  switch (p?.$case) {
    case 'task':
      return { kind: 'task', id: p.value.id, state: p.value.status?.state };
    case 'message':
      return { kind: 'message', text: texts(p.value.parts).join('') };
    case 'statusUpdate':
      return { kind: 'status', id: p.value.taskId, state: p.value.status?.state };
    case 'artifactUpdate':
      return { kind: 'artifact', id: p.value.taskId, text: texts(p.value.artifact?.parts).join('') };
    default:
      return { kind: 'unknown', raw: ev };
  }
}

function fmtTrace(trace) {
  return trace.map((e) => `${e.kind}${e.state !== undefined ? ':' + stateName(e.state) : ''}${e.text ? ':' + JSON.stringify(e.text) : ''}`).join(' -> ');
}

async function newClient(binding) {
  // A factory with a single transport can only pick that binding.
  const factory = new ClientFactory({ transports: [bindings[binding]()], preferredTransports: [binding] });
  return factory.createFromUrl(cardUrl, '');
}

for (const binding of Object.keys(bindings)) {
  describe(`binding ${binding}`, { skip: !selected.includes(binding) && `A2A_BINDINGS excludes ${binding}` }, () => {
    let client;

    before(async () => {
      client = await newClient(binding);
      tenant = process.env.A2A_TENANT ?? '';
      if (!process.env.A2A_TENANT && binding === 'GRPC') {
        const card = await (await fetch(cardUrl)).json();
        tenant = (card.supportedInterfaces ?? []).find((i) => i.protocolBinding === 'GRPC')?.tenant ?? '';
      }
    });

    test('card fetch lists both bindings at protocol 1.0 and streaming', { timeout: TIMEOUT }, async () => {
      const res = await fetch(cardUrl);
      assert.equal(res.status, 200, `GET ${cardUrl}`);
      const card = await res.json();
      const ifaces = card.supportedInterfaces ?? [];
      const byBinding = Object.fromEntries(ifaces.map((i) => [i.protocolBinding, i]));
      if (binding === 'GRPC') {
        assert.ok(byBinding.GRPC, `card has a GRPC interface: ${JSON.stringify(ifaces)}`);
      } else {
        assert.ok(byBinding.JSONRPC, `card has a JSONRPC interface: ${JSON.stringify(ifaces)}`);
        assert.ok(byBinding['HTTP+JSON'], `card has an HTTP+JSON interface: ${JSON.stringify(ifaces)}`);
      }
      for (const i of ifaces) assert.equal(i.protocolVersion, '1.0', `protocolVersion of ${i.protocolBinding}`);
      assert.equal(card.capabilities?.streaming, true, 'capabilities.streaming');
      assert.equal(client.transport.protocolName.toUpperCase(), binding, 'client uses the forced binding');
    });

    test('blocking send echoes the text as an artifact and completes', { timeout: TIMEOUT }, async () => {
      const result = await client.sendMessage(sendRequest(userMessage('hello interop')));
      assert.ok(isTask(result), `result is a Task: ${JSON.stringify(result)}`);
      assert.equal(stateName(result.status.state), 'TASK_STATE_COMPLETED');
      assert.deepEqual(artifactTexts(result), ['echo: hello interop']);
      assert.ok(result.id, 'task id set');
      assert.ok(result.contextId, 'context id set');
    });

    test('streaming send yields task, working, artifact, completed in order', { timeout: TIMEOUT }, async () => {
      const trace = [];
      for await (const ev of client.sendMessageStream(sendRequest(userMessage('stream me')))) {
        trace.push(describeEvent(ev));
      }
      const t = fmtTrace(trace);
      assert.ok(trace.length >= 3, `at least 3 events: ${t}`);
      assert.equal(trace[0].kind, 'task', `first event is the task: ${t}`);
      const working = trace.findIndex((e) => e.kind === 'status' && e.state === TaskState.TASK_STATE_WORKING);
      const artifact = trace.findIndex((e) => e.kind === 'artifact');
      const last = trace[trace.length - 1];
      assert.ok(working > 0, `a WORKING status update: ${t}`);
      assert.ok(artifact > working, `artifact after WORKING: ${t}`);
      assert.equal(trace[artifact].text, 'echo: stream me', `artifact text: ${t}`);
      assert.equal(last.kind, 'status', `last event is a status update: ${t}`);
      assert.equal(stateName(last.state), 'TASK_STATE_COMPLETED', `last state: ${t}`);
      const ids = new Set(trace.filter((e) => e.id).map((e) => e.id));
      assert.equal(ids.size, 1, `all events carry one task id: ${t}`);
    });

    test('multi-turn /interview asks for input, then greets', { timeout: TIMEOUT }, async () => {
      const first = await client.sendMessage(sendRequest(userMessage('/interview')));
      assert.ok(isTask(first), `first turn is a Task: ${JSON.stringify(first)}`);
      assert.equal(stateName(first.status.state), 'TASK_STATE_INPUT_REQUIRED');
      assert.match(texts(first.status.message?.parts).join(''), /What is your name\?/);
      const second = await client.sendMessage(
        sendRequest(userMessage('Ada', { taskId: first.id, contextId: first.contextId })),
      );
      assert.ok(isTask(second), `second turn is a Task: ${JSON.stringify(second)}`);
      assert.equal(second.id, first.id, 'same task');
      assert.equal(stateName(second.status.state), 'TASK_STATE_COMPLETED');
      assert.ok(artifactTexts(second).includes('Hello, Ada!'), `artifacts: ${JSON.stringify(artifactTexts(second))}`);
    });

    test('get returns the stored task', { timeout: TIMEOUT }, async () => {
      const sent = await client.sendMessage(sendRequest(userMessage('get me')));
      const got = await client.getTask({ tenant, id: sent.id });
      assert.equal(got.id, sent.id);
      assert.equal(got.contextId, sent.contextId);
      assert.equal(stateName(got.status.state), 'TASK_STATE_COMPLETED');
      assert.deepEqual(artifactTexts(got), ['echo: get me']);
    });

    test('list finds tasks by context id', { timeout: TIMEOUT }, async () => {
      const a = await client.sendMessage(sendRequest(userMessage('list one')));
      const b = await client.sendMessage(sendRequest(userMessage('list two', { contextId: a.contextId })));
      assert.equal(b.contextId, a.contextId, 'second task joined the context');
      const res = await client.listTasks({
        tenant,
        contextId: a.contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      });
      const ids = (res.tasks ?? []).map((t) => t.id).sort();
      assert.deepEqual(ids, [a.id, b.id].sort(), `listed ids ${JSON.stringify(ids)}`);
    });

    test('cancel of /slow 10 ends the task CANCELED', { timeout: TIMEOUT }, async () => {
      const trace = [];
      let taskId;
      let canceled;
      for await (const ev of client.sendMessageStream(sendRequest(userMessage('/slow 10')))) {
        const e = describeEvent(ev);
        trace.push(e);
        if (!taskId && e.id) taskId = e.id;
        if (!canceled && e.kind === 'status' && e.state === TaskState.TASK_STATE_WORKING) {
          canceled = await client.cancelTask({ tenant, id: taskId, metadata: undefined });
        }
        if (e.state !== undefined && TERMINAL.has(e.state)) break;
      }
      const t = fmtTrace(trace);
      assert.ok(canceled, `cancel was sent after a WORKING update: ${t}`);
      assert.equal(stateName(canceled.status.state), 'TASK_STATE_CANCELED', 'CancelTask result state');
      const got = await client.getTask({ tenant, id: taskId });
      assert.equal(stateName(got.status.state), 'TASK_STATE_CANCELED', `stored state; stream: ${t}`);
      assert.ok(!trace.some((e) => e.state === TaskState.TASK_STATE_COMPLETED), `never completed: ${t}`);
    });

    test('subscribe to a running task streams its events until it ends', { timeout: TIMEOUT }, async () => {
      const started = await client.sendMessage(sendRequest(userMessage('/slow 10'), { acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: undefined, returnImmediately: true }));
      assert.ok(isTask(started), `returnImmediately gives the task: ${JSON.stringify(started)}`);
      const trace = [];
      let canceled;
      for await (const ev of client.resubscribeTask({ tenant, id: started.id })) {
        const e = describeEvent(ev);
        trace.push(e);
        if (!canceled) canceled = await client.cancelTask({ tenant, id: started.id, metadata: undefined });
        if (e.state !== undefined && TERMINAL.has(e.state)) break;
      }
      const t = fmtTrace(trace);
      assert.ok(trace.length >= 1, `events: ${t}`);
      assert.equal(stateName(trace[trace.length - 1].state), 'TASK_STATE_CANCELED', `the subscription ends with the cancel: ${t}`);
      assert.ok(trace.every((e) => !e.id || e.id === started.id), `one task id: ${t}`);
    });

    test('/fail ends FAILED with a status message', { timeout: TIMEOUT }, async () => {
      const result = await client.sendMessage(sendRequest(userMessage('/fail')));
      assert.ok(isTask(result), `result is a Task: ${JSON.stringify(result)}`);
      assert.equal(stateName(result.status.state), 'TASK_STATE_FAILED');
      assert.ok(texts(result.status.message?.parts).join('').length > 0, 'status message text');
    });

    test('/message gets a direct Message reply', { timeout: TIMEOUT }, async () => {
      const result = await client.sendMessage(sendRequest(userMessage('/message')));
      assert.ok(!isTask(result), `result is a Message: ${JSON.stringify(result)}`);
      assert.equal(result.role, Role.ROLE_AGENT);
      assert.ok(texts(result.parts).join('').length > 0, 'reply text');
    });

    test('get of an unknown task id fails with TaskNotFoundError', { timeout: TIMEOUT }, async () => {
      const id = crypto.randomUUID();
      await assert.rejects(client.getTask({ tenant, id }), (err) => {
        const info = `${err?.name}: ${err?.message} code=${err?.code} status=${err?.status}`;
        assert.ok(
          err?.name === 'TaskNotFoundError' || err?.code === -32001 || err?.status === 404 || err?.code === 5,
          `want TaskNotFoundError (-32001 / 404 / NOT_FOUND), got ${info}`,
        );
        return true;
      });
    });
  });
}
