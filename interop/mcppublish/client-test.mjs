// Interop tests: the @a2a-js/sdk 1.0 client calls tools of
// @modelcontextprotocol/server-everything published as an A2A agent by the
// bridge (mcp/publish over a stdio child).
//
// Usage: A2A_BASE_URL=http://127.0.0.1:PORT/a2a/everything node --test client-test.mjs
// (the Go test publish_test.go starts the bridge side and runs this file).

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

const base = (process.env.A2A_BASE_URL || '').replace(/\/+$/, '');
if (!base) {
  console.error('client-test: set A2A_BASE_URL');
  process.exit(2);
}
const cardUrl = `${base}/.well-known/agent-card.json`;
const TIMEOUT = 60_000;
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

const bindings = {
  JSONRPC: () => new JsonRpcTransportFactory(),
  'HTTP+JSON': () => new RestTransportFactory(),
  GRPC: () => new GrpcTransportFactory(),
};

// tenant is the tenant of the binding under test: the GRPC interface's on
// gRPC (the card names the agent so), none on the HTTP bindings.
let tenant = '';

function dataPart(value) {
  return { content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined };
}

function callMessage(tool, args) {
  return {
    messageId: crypto.randomUUID(),
    taskId: '',
    contextId: '',
    role: Role.ROLE_USER,
    parts: [dataPart({ tool, arguments: args })],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const send = (message) => ({ tenant, message, configuration: undefined, metadata: undefined });
const stateName = (s) => TaskState[s] ?? String(s);
const texts = (parts) => (parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value);
const statusText = (task) => texts(task.status?.message?.parts).join(' ');
const artifactParts = (task) => (task.artifacts ?? []).flatMap((a) => a.parts ?? []);

for (const binding of Object.keys(bindings)) {
  describe(`binding ${binding}`, () => {
    let client;
    before(async () => {
      const factory = new ClientFactory({ transports: [bindings[binding]()], preferredTransports: [binding] });
      client = await factory.createFromUrl(cardUrl, '');
      const card = await (await fetch(cardUrl)).json();
      tenant = binding === 'GRPC' ? (card.supportedInterfaces ?? []).find((i) => i.protocolBinding === 'GRPC')?.tenant ?? '' : '';
    });

    test('card has one skill per tool and the schema extension', { timeout: TIMEOUT }, async () => {
      const card = await (await fetch(cardUrl)).json();
      const ids = card.skills.map((s) => s.id);
      for (const t of ['echo', 'get-sum', 'get-tiny-image', 'get-structured-content', 'trigger-long-running-operation']) {
        assert.ok(ids.includes(t), `skill ${t} in ${ids}`);
      }
      const ext = card.capabilities.extensions.find((e) => e.uri === 'https://a2a-mcp-bridge.dev/ext/mcp-tool-schema/v1');
      assert.ok(ext?.params?.['get-sum']?.properties?.a, `get-sum schema in the card: ${JSON.stringify(ext)}`);
    });

    test('echo', { timeout: TIMEOUT }, async () => {
      const task = await client.sendMessage(send(callMessage('echo', { message: 'hello interop' })));
      assert.equal(stateName(task.status.state), 'TASK_STATE_COMPLETED', statusText(task));
      assert.match(texts(artifactParts(task)).join(''), /hello interop/);
    });

    test('get-sum', { timeout: TIMEOUT }, async () => {
      const task = await client.sendMessage(send(callMessage('get-sum', { a: 2, b: 40 })));
      assert.equal(stateName(task.status.state), 'TASK_STATE_COMPLETED', statusText(task));
      assert.match(texts(artifactParts(task)).join(''), /42/);
    });

    test('get-tiny-image is a raw image/png part', { timeout: TIMEOUT }, async () => {
      const task = await client.sendMessage(send(callMessage('get-tiny-image', {})));
      assert.equal(stateName(task.status.state), 'TASK_STATE_COMPLETED', statusText(task));
      const img = artifactParts(task).find((p) => p.content?.$case === 'raw');
      assert.ok(img, `a raw part: ${JSON.stringify(artifactParts(task)).slice(0, 300)}`);
      assert.equal(img.mediaType, 'image/png');
      const bytes = Buffer.from(img.content.value);
      assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], 'PNG magic');
    });

    test('get-structured-content is a data part', { timeout: TIMEOUT }, async () => {
      const task = await client.sendMessage(send(callMessage('get-structured-content', { location: 'New York' })));
      assert.equal(stateName(task.status.state), 'TASK_STATE_COMPLETED', statusText(task));
      const data = artifactParts(task).find((p) => p.content?.$case === 'data');
      assert.ok(data, 'a data part');
      assert.equal(typeof data.content.value.temperature, 'number', JSON.stringify(data.content.value));
    });

    test('trigger-long-running-operation streams WORKING in order, then COMPLETED', { timeout: TIMEOUT }, async () => {
      const states = [];
      const progress = [];
      for await (const ev of client.sendMessageStream(send(callMessage('trigger-long-running-operation', { duration: 1, steps: 4 })))) {
        const p = ev.payload;
        if (p?.$case === 'statusUpdate') {
          states.push(stateName(p.value.status.state));
          const m = /\((\d+)\/(\d+)\)/.exec(texts(p.value.status.message?.parts).join(''));
          if (m) progress.push(Number(m[1]));
          if (TERMINAL.has(p.value.status.state)) break;
        }
      }
      assert.equal(states.at(-1), 'TASK_STATE_COMPLETED', states.join(' '));
      assert.ok(states.slice(0, -1).every((s) => s === 'TASK_STATE_WORKING'), states.join(' '));
      assert.ok(progress.length >= 1, `progress updates seen: ${states.join(' ')}`);
      for (let i = 1; i < progress.length; i++) assert.ok(progress[i] > progress[i - 1], `in order: ${progress}`);
    });

    test('50 bursts of progress: the last one always precedes COMPLETED', { timeout: TIMEOUT }, async () => {
      // Five notifications 10 ms apart and the result right after the last:
      // WORKING updates are rate limited (the latest wins), but the last
      // progress the server sent is reported, and before the result.
      const short = [];
      for (let run = 0; run < 50; run++) {
        const seen = [];
        let final;
        for await (const ev of client.sendMessageStream(send(callMessage('trigger-long-running-operation', { duration: 0.05, steps: 5 })))) {
          const p = ev.payload;
          if (p?.$case === 'statusUpdate') {
            if (TERMINAL.has(p.value.status.state)) {
              final = stateName(p.value.status.state);
              break;
            }
            const m = /\((\d+)\/(\d+)\)/.exec(texts(p.value.status.message?.parts).join(''));
            if (m) seen.push(Number(m[1]));
          }
        }
        assert.equal(final, 'TASK_STATE_COMPLETED', `run ${run}`);
        for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], `run ${run}: in order: ${seen}`);
        if (seen.at(-1) !== 5) short.push(`run ${run}: ${seen}`);
      }
      assert.deepEqual(short, [], 'runs whose last progress before COMPLETED was not the last one sent');
    });

    test('trigger-long-running-operation cancelled midway', { timeout: TIMEOUT }, async () => {
      let taskId;
      let canceled;
      const states = [];
      for await (const ev of client.sendMessageStream(send(callMessage('trigger-long-running-operation', { duration: 30, steps: 30 })))) {
        const p = ev.payload;
        if (p?.$case === 'task') taskId = p.value.id;
        if (p?.$case === 'statusUpdate') {
          taskId ||= p.value.taskId;
          const st = stateName(p.value.status.state);
          states.push(st);
          // Cancel once a progress update arrived: the call is midway.
          if (!canceled && /\(\d+\/30\)/.test(texts(p.value.status.message?.parts).join(''))) {
            canceled = await client.cancelTask({ tenant, id: taskId, metadata: undefined });
          }
          if (TERMINAL.has(p.value.status.state)) break;
        }
      }
      assert.ok(canceled, `cancel sent after progress: ${states.join(' ')}`);
      assert.equal(stateName(canceled.status.state), 'TASK_STATE_CANCELED');
      const got = await client.getTask({ tenant, id: taskId });
      assert.equal(stateName(got.status.state), 'TASK_STATE_CANCELED');
    });

    test('an unknown tool fails clearly', { timeout: TIMEOUT }, async () => {
      const task = await client.sendMessage(send(callMessage('no-such-tool', {})));
      assert.equal(stateName(task.status.state), 'TASK_STATE_FAILED');
      assert.match(statusText(task), /unknown tool "no-such-tool".*get-sum/);
    });

    test('bad arguments fail clearly before any upstream call', { timeout: TIMEOUT }, async () => {
      const task = await client.sendMessage(send(callMessage('get-sum', { a: 'two' })));
      assert.equal(stateName(task.status.state), 'TASK_STATE_FAILED');
      assert.match(statusText(task), /do not match its input schema/);
    });
  });
}
