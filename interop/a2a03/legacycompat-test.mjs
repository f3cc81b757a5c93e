// Interop tests: the legacyCompat layer of the @a2a-js/sdk 1.3.0 client
// (A2A 1.0 API, A2A 0.3 on the wire) against the bridge's 0.3 view.
//
// The card is read as a 0.3 client is told to read it
// (?A2A-Version=0.3), without its 1.0 members (supportedInterfaces), so that the SDK's own card
// translation (parseLegacyAgentCard) and its LegacyJsonRpcTransport are
// what talks to the bridge. A2A_BASE_URL is the agent's base URL (the
// demo agent's behaviour is expected).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { isLegacyAgentCard, parseLegacyAgentCard, LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';

const base = (process.env.A2A_BASE_URL || '').replace(/\/+$/, '');
if (!base) {
  console.error('legacycompat-test: set A2A_BASE_URL');
  process.exit(2);
}
const TIMEOUT = 30_000;

function userMessage(text, { taskId = '', contextId = '' } = {}) {
  return {
    messageId: crypto.randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
const send = (message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });
const texts = (parts) => (parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value);

async function legacyClient() {
  const raw = await (await fetch(`${base}/.well-known/agent-card.json?A2A-Version=0.3`)).json();
  assert.equal(isLegacyAgentCard(raw), false, 'with its 1.0 members the card is read as 1.0');
  const view = { ...raw };
  delete view.supportedInterfaces;
  assert.equal(isLegacyAgentCard(view), true, 'the 0.3 view is a 0.3 card');
  const card = parseLegacyAgentCard(view);
  const jsonrpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC');
  assert.match(jsonrpc?.protocolVersion ?? '', /^0\.3/, JSON.stringify(card.supportedInterfaces));
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })], preferredTransports: ['JSONRPC'] });
  const client = await factory.createFromAgentCard(card);
  const transport = client.transport.base ?? client.transport; // under the tenant decorator
  assert.equal(transport.constructor.name, LegacyJsonRpcTransport.name, 'the legacy transport speaks to the bridge');
  return client;
}

test('legacyCompat: send, multi-turn, stream, get, cancel and push config over the 0.3 view', { timeout: TIMEOUT }, async () => {
  const client = await legacyClient();
  const echo = await client.sendMessage(send(userMessage('hello legacy')));
  assert.equal(echo.status.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(echo));
  assert.deepEqual(echo.artifacts.flatMap((a) => texts(a.parts)), ['echo: hello legacy']);

  const first = await client.sendMessage(send(userMessage('/interview')));
  assert.equal(first.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  const second = await client.sendMessage(send(userMessage('Ada', { taskId: first.id, contextId: first.contextId })));
  assert.equal(second.status.state, TaskState.TASK_STATE_COMPLETED);

  const states = [];
  for await (const ev of client.sendMessageStream(send(userMessage('stream legacy')))) {
    const p = ev.payload;
    if (p?.$case === 'statusUpdate') states.push(p.value.status.state);
  }
  assert.equal(states[states.length - 1], TaskState.TASK_STATE_COMPLETED, JSON.stringify(states));

  const got = await client.getTask({ tenant: '', id: first.id });
  assert.equal(got.status.state, TaskState.TASK_STATE_COMPLETED);

  let taskId;
  let canceled;
  for await (const ev of client.sendMessageStream(send(userMessage('/slow 10')))) {
    const p = ev.payload;
    taskId ??= p?.value?.id ?? p?.value?.taskId;
    if (!canceled && p?.$case === 'statusUpdate' && p.value.status.state === TaskState.TASK_STATE_WORKING) {
      canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    }
    if (p?.$case === 'statusUpdate' && p.value.status.state === TaskState.TASK_STATE_CANCELED) break;
  }
  assert.equal(canceled?.status.state, TaskState.TASK_STATE_CANCELED);

  const cfg = await client.createTaskPushNotificationConfig({ tenant: '', id: 'legacy-cfg', taskId: first.id, url: 'https://push.example.com/hook', token: 't', authentication: undefined });
  assert.equal(cfg.id, 'legacy-cfg');
  const list = await client.listTaskPushNotificationConfig({ tenant: '', taskId: first.id, pageSize: 0, pageToken: '' });
  assert.ok((list.configs ?? []).some((c) => c.id === 'legacy-cfg'), JSON.stringify(list));
  await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: first.id, id: 'legacy-cfg' });
});
