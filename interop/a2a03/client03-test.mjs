// Interop tests: the @a2a-js/sdk 0.3.14 client (an A2A 0.3 client, installed
// under the alias "a2a03") against an agent the bridge serves.
//
// A2A_BASE_URL is the agent's base URL; the card is fetched, as a 0.3 client
// does, without an A2A-Version header from
// <base>/.well-known/agent-card.json<A2A_CARD_QUERY>, where A2A_CARD_QUERY is
// "?A2A-Version=0.3" unless set (set it empty for a bridge configured with
// server.a2a_v03_card: default). A2A_AGENT says which behaviour to expect:
//   demo  (default) the demo agent: echo, /interview, /slow N, /fail, /message
//   tools the demo MCP tools or server-everything published as an agent:
//         a message naming a tool (metadata skillId + a data part of arguments)
//   echo  a fronted agent that echoes (`echo: <text>`), as ../a2ajs/server.mjs
// A2A_BINDINGS=JSONRPC or HTTP+JSON restricts the run to one binding.
// A2A_PUSH_URL, when set, is a webhook that records what it receives at
// <A2A_PUSH_URL>/received (see push-receiver.mjs); the push tests then also
// check a delivery.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from 'a2a03/client';

const base = (process.env.A2A_BASE_URL || '').replace(/\/+$/, '');
if (!base) {
  console.error('client03-test: set A2A_BASE_URL');
  process.exit(2);
}
const agentKind = process.env.A2A_AGENT || 'demo';
const pushURL = process.env.A2A_PUSH_URL || '';
const cardUrl = `${base}/.well-known/agent-card.json${process.env.A2A_CARD_QUERY ?? '?A2A-Version=0.3'}`;
const TIMEOUT = 30_000;
const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

const bindings = {
  JSONRPC: () => new JsonRpcTransportFactory(),
  'HTTP+JSON': () => new RestTransportFactory(),
};
const selected = (process.env.A2A_BINDINGS || 'JSONRPC,HTTP+JSON').split(',').map((s) => s.trim());

function userMessage(text, { taskId, contextId, metadata, data } = {}) {
  const parts = data === undefined ? [{ kind: 'text', text }] : [{ kind: 'data', data }];
  const m = { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts };
  if (taskId) m.taskId = taskId;
  if (contextId) m.contextId = contextId;
  if (metadata) m.metadata = metadata;
  return m;
}

const texts = (parts) => (parts ?? []).filter((p) => p.kind === 'text').map((p) => p.text);
const artifactTexts = (task) => (task.artifacts ?? []).flatMap((a) => texts(a.parts));

function describeEvent(ev) {
  switch (ev?.kind) {
    case 'task':
      return { kind: 'task', id: ev.id, state: ev.status?.state };
    case 'message':
      return { kind: 'message', text: texts(ev.parts).join('') };
    case 'status-update':
      return { kind: 'status', id: ev.taskId, state: ev.status?.state, final: ev.final };
    case 'artifact-update':
      return { kind: 'artifact', id: ev.taskId, text: texts(ev.artifact?.parts).join('') };
    default:
      return { kind: 'unknown', raw: ev };
  }
}

const fmt = (trace) =>
  trace.map((e) => `${e.kind}${e.state ? ':' + e.state : ''}${e.final ? '(final)' : ''}${e.text ? ':' + JSON.stringify(e.text) : ''}`).join(' -> ');

async function newClient(binding) {
  const factory = new ClientFactory({ transports: [bindings[binding]()], preferredTransports: [binding] });
  return factory.createFromUrl(cardUrl, '');
}

async function received() {
  const res = await fetch(`${pushURL}/received`);
  return res.json();
}

async function waitFor(what, fn) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the card a 0.3 client reads: url, preferredTransport, additionalInterfaces, protocolVersion 0.3 beside the 1.0 members', { timeout: TIMEOUT }, async () => {
  const res = await fetch(cardUrl);
  assert.equal(res.status, 200);
  const card = await res.json();
  assert.match(card.protocolVersion, /^0\.3/, 'protocolVersion');
  assert.ok(card.url, 'url');
  assert.equal(card.preferredTransport, 'JSONRPC');
  const transports = (card.additionalInterfaces ?? []).map((i) => i.transport);
  assert.ok(transports.includes('JSONRPC') && transports.includes('HTTP+JSON'), `additionalInterfaces: ${JSON.stringify(card.additionalInterfaces)}`);
  assert.ok((card.supportedInterfaces ?? []).every((i) => i.protocolVersion === '1.0'), 'the 1.0 interfaces are still there');
  const v1 = await (await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
  assert.equal(v1.url, undefined, 'a 1.0 reader gets the 1.0 card');
  assert.ok(v1.supportedInterfaces?.length > 0);
});

for (const binding of Object.keys(bindings)) {
  describe(`0.3 client, binding ${binding}`, { skip: !selected.includes(binding) && `A2A_BINDINGS excludes ${binding}` }, () => {
    let client;
    before(async () => {
      client = await newClient(binding);
    });

    if (agentKind === 'tools') {
      test('a tool call through message/send completes with the tool result', { timeout: TIMEOUT }, async () => {
        const tool = process.env.A2A_TOOL || 'echo';
        const args = JSON.parse(process.env.A2A_TOOL_ARGS || '{"message":"hi 0.3"}');
        const result = await client.sendMessage({ message: userMessage('', { data: { tool, arguments: args } }) });
        assert.equal(result.kind, 'task', JSON.stringify(result));
        assert.equal(result.status.state, 'completed', JSON.stringify(result));
        const all = JSON.stringify(result.artifacts);
        assert.ok(all.includes(process.env.A2A_TOOL_EXPECT || 'hi 0.3'), `artifacts: ${all}`);
        const got = await client.getTask({ id: result.id });
        assert.equal(got.status.state, 'completed');
      });
      test('streaming a tool call ends with a final completed status', { timeout: TIMEOUT }, async () => {
        const tool = process.env.A2A_TOOL || 'echo';
        const args = JSON.parse(process.env.A2A_TOOL_ARGS || '{"message":"hi 0.3"}');
        const trace = [];
        for await (const ev of client.sendMessageStream({ message: userMessage('', { data: { tool, arguments: args } }) })) {
          trace.push(describeEvent(ev));
        }
        const last = trace[trace.length - 1];
        assert.equal(last.kind, 'status', fmt(trace));
        assert.equal(last.state, 'completed', fmt(trace));
        assert.equal(last.final, true, fmt(trace));
      });
      return;
    }

    test('blocking message/send echoes and completes', { timeout: TIMEOUT }, async () => {
      const result = await client.sendMessage({ message: userMessage('hello 0.3') });
      assert.equal(result.kind, 'task', JSON.stringify(result));
      assert.equal(result.status.state, 'completed');
      assert.deepEqual(artifactTexts(result), ['echo: hello 0.3']);
      assert.ok(result.contextId);
    });

    test('message/stream yields task, working, artifact, final completed', { timeout: TIMEOUT }, async () => {
      const trace = [];
      for await (const ev of client.sendMessageStream({ message: userMessage('stream 0.3') })) {
        trace.push(describeEvent(ev));
      }
      const t = fmt(trace);
      assert.equal(trace[0].kind, 'task', t);
      assert.ok(trace.some((e) => e.kind === 'artifact' && e.text === 'echo: stream 0.3'), t);
      const last = trace[trace.length - 1];
      assert.equal(last.kind, 'status', t);
      assert.equal(last.state, 'completed', t);
      assert.equal(last.final, true, `final on the last status update: ${t}`);
      assert.ok(trace.slice(0, -1).every((e) => !e.final), `final only on the last: ${t}`);
    });

    if (agentKind === 'echo') return;

    test('/interview: input-required, then the second turn completes', { timeout: TIMEOUT }, async () => {
      const first = await client.sendMessage({ message: userMessage('/interview') });
      assert.equal(first.kind, 'task');
      assert.equal(first.status.state, 'input-required');
      assert.match(texts(first.status.message?.parts).join(''), /What is your name\?/);
      const second = await client.sendMessage({ message: userMessage('Ada', { taskId: first.id, contextId: first.contextId }) });
      assert.equal(second.id, first.id);
      assert.equal(second.status.state, 'completed');
      assert.ok(artifactTexts(second).includes('Hello, Ada!'), JSON.stringify(second.artifacts));
    });

    test('tasks/get returns the task; an unknown id is TaskNotFound', { timeout: TIMEOUT }, async () => {
      const sent = await client.sendMessage({ message: userMessage('get 0.3') });
      const got = await client.getTask({ id: sent.id, historyLength: 1 });
      assert.equal(got.kind, 'task');
      assert.equal(got.id, sent.id);
      assert.equal(got.status.state, 'completed');
      assert.deepEqual(artifactTexts(got), ['echo: get 0.3']);
      await assert.rejects(client.getTask({ id: crypto.randomUUID() }), (err) => {
        assert.ok(err?.name === 'TaskNotFoundError' || /-32001/.test(err?.message), `${err?.name}: ${err?.message}`);
        return true;
      });
    });

    test('tasks/cancel of /slow 10 ends it canceled; tasks/resubscribe follows a running task', { timeout: TIMEOUT }, async () => {
      const trace = [];
      let taskId;
      for await (const ev of client.sendMessageStream({ message: userMessage('/slow 10') })) {
        const e = describeEvent(ev);
        trace.push(e);
        taskId ??= e.id;
        if (e.kind === 'status' && e.state === 'working') break; // drop the first stream
      }
      assert.ok(taskId, fmt(trace));
      const again = [];
      let canceled;
      for await (const ev of client.resubscribeTask({ id: taskId })) {
        const e = describeEvent(ev);
        again.push(e);
        if (!canceled && e.state === 'working') canceled = await client.cancelTask({ id: taskId });
        if (e.final) break;
      }
      const t = fmt(again);
      assert.ok(canceled, `cancel sent: ${t}`);
      assert.equal(canceled.kind, 'task');
      assert.equal(canceled.status.state, 'canceled');
      const last = again[again.length - 1];
      assert.equal(last.state, 'canceled', t);
      assert.equal(last.final, true, t);
      const got = await client.getTask({ id: taskId });
      assert.equal(got.status.state, 'canceled');
    });

    test('/fail ends failed; /message is a direct message', { timeout: TIMEOUT }, async () => {
      const failed = await client.sendMessage({ message: userMessage('/fail') });
      assert.equal(failed.status.state, 'failed');
      const msg = await client.sendMessage({ message: userMessage('/message') });
      assert.equal(msg.kind, 'message', JSON.stringify(msg));
      assert.equal(msg.role, 'agent');
      assert.ok(texts(msg.parts).join('').length > 0);
    });

    test('push notification config: set, get, list, delete (nested pushNotificationConfig)', { timeout: TIMEOUT }, async () => {
      const first = await client.sendMessage({ message: userMessage('/interview') });
      const url = pushURL ? `${pushURL}/hook` : 'https://push.example.com/hook';
      const token = `tok-${crypto.randomUUID()}`;
      const set = await client.setTaskPushNotificationConfig({
        taskId: first.id,
        pushNotificationConfig: { id: 'cfg1', url, token, authentication: { schemes: ['Bearer'], credentials: 'secret-cred' } },
      });
      assert.equal(set.taskId, first.id);
      assert.equal(set.pushNotificationConfig.id, 'cfg1');
      assert.equal(set.pushNotificationConfig.url, url);
      assert.deepEqual(set.pushNotificationConfig.authentication?.schemes, ['Bearer']);
      const got = await client.getTaskPushNotificationConfig({ id: first.id, pushNotificationConfigId: 'cfg1' });
      assert.equal(got.pushNotificationConfig.url, url);
      const list = await client.listTaskPushNotificationConfig({ id: first.id });
      assert.deepEqual(list.map((c) => c.pushNotificationConfig.id), ['cfg1']);
      if (pushURL) {
        await client.sendMessage({ message: userMessage('Grace', { taskId: first.id, contextId: first.contextId }) });
        const hit = await waitFor('a push delivery', async () =>
          (await received()).find((r) => r.token === token && JSON.stringify(r.body).includes('Hello, Grace!')),
        );
        assert.equal(hit.token, token, 'X-A2A-Notification-Token carries the token');
        // A webhook a 0.3 client registered gets the task in its 0.3 shape.
        const last = await waitFor('the completed task delivered', async () =>
          (await received()).find((r) => r.token === token && r.body?.status?.state === 'completed'),
        );
        assert.equal(last.body.kind, 'task', JSON.stringify(last.body));
        assert.equal(last.body.id, first.id);
        assert.ok(last.body.artifacts.some((a) => a.parts.some((p) => p.kind === 'text' && p.text === 'Hello, Grace!')), JSON.stringify(last.body));
      }
      await client.deleteTaskPushNotificationConfig({ id: first.id, pushNotificationConfigId: 'cfg1' });
      const after = await client.listTaskPushNotificationConfig({ id: first.id });
      assert.deepEqual(after, []);
    });
  });
}
