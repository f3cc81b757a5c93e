// Interop tests: the @a2a-js/sdk 1.3.0 client (A2A 1.0) through the bridge
// to a fronted agent (in the tests, the 0.3 agent server03.mjs), as two
// principals: push notifications registered by principal A reach A's
// webhook, and principal B can neither read, cancel, list nor continue A's
// task.
//
// A2A_BASE_URL is the bridge's base URL for the agent; A2A_PUSH_URL a
// push-receiver.mjs. Bearer tokens token-a and token-b name the principals.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';

const base = (process.env.A2A_BASE_URL || '').replace(/\/+$/, '');
const pushURL = process.env.A2A_PUSH_URL || '';
if (!base || !pushURL) {
  console.error('front10-test: set A2A_BASE_URL and A2A_PUSH_URL');
  process.exit(2);
}
const cardUrl = `${base}/.well-known/agent-card.json`;
const TIMEOUT = 30_000;

function withToken(token) {
  return (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(url, { ...init, headers });
  };
}

async function clientAs(token, binding) {
  const fetchImpl = withToken(token);
  const transport = binding === 'JSONRPC' ? new JsonRpcTransportFactory({ fetchImpl }) : new RestTransportFactory({ fetchImpl });
  const factory = new ClientFactory({ transports: [transport], preferredTransports: [binding] });
  return factory.createFromUrl(cardUrl, '');
}

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

async function waitFor(what, fn) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function notFound(err) {
  return err?.name === 'TaskNotFoundError' || err?.code === -32001 || err?.status === 404 || /not found/i.test(err?.message ?? '');
}

for (const binding of ['JSONRPC', 'HTTP+JSON']) {
  test(`${binding}: push of principal A's multi-turn task reaches A's webhook; principal B cannot see the task`, { timeout: TIMEOUT }, async () => {
    const a = await clientAs('token-a', binding);
    const b = await clientAs('token-b', binding);
    const first = await a.sendMessage(send(userMessage('/interview')));
    assert.equal(first.status.state, TaskState.TASK_STATE_INPUT_REQUIRED, JSON.stringify(first.status));
    const token = `tok-${crypto.randomUUID()}`;
    const cfg = await a.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: first.id,
      url: `${pushURL}/hook-a`,
      token,
      authentication: undefined,
    });
    assert.equal(cfg.taskId, first.id);
    assert.ok(cfg.id, 'the bridge assigned a config id');

    // B sees nothing of A's task.
    await assert.rejects(b.getTask({ tenant: '', id: first.id }), (e) => notFound(e) || assert.fail(`get: ${e}`));
    await assert.rejects(b.cancelTask({ tenant: '', id: first.id, metadata: undefined }), (e) => notFound(e) || assert.fail(`cancel: ${e}`));
    await assert.rejects(b.sendMessage(send(userMessage('Mallory', { taskId: first.id, contextId: first.contextId }))), (e) => notFound(e) || assert.fail(`send: ${e}`));
    await assert.rejects(
      b.listTaskPushNotificationConfig({ tenant: '', taskId: first.id, pageSize: 0, pageToken: '' }),
      (e) => notFound(e) || assert.fail(`list push: ${e}`),
    );
    const listed = await b.listTasks({ tenant: '', contextId: first.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined });
    assert.deepEqual((listed.tasks ?? []).map((t) => t.id), [], 'B lists none of A\'s tasks');

    const second = await a.sendMessage(send(userMessage('Grace', { taskId: first.id, contextId: first.contextId })));
    assert.equal(second.status.state, TaskState.TASK_STATE_COMPLETED);
    const hit = await waitFor('the push delivery of the completed task', async () => {
      const got = await (await fetch(`${pushURL}/received`)).json();
      return got.find((r) => r.token10 === token && JSON.stringify(r.body).includes('TASK_STATE_COMPLETED'));
    });
    assert.equal(hit.path, '/hook-a');
    assert.ok(JSON.stringify(hit.body).includes(first.id), 'the delivery names the bridge\'s task id');
    const got = await a.getTask({ tenant: '', id: first.id });
    assert.ok(texts(got.artifacts?.flatMap((x) => x.parts)).includes('Hello, Grace!'));
  });
}
