// The official MCP TypeScript client against the whole bridge (gateway.Build,
// policy deny by default). Driven by fidelity_test.go.
//
// Environment:
//   MCP_URL    the /mcp endpoint
//   ALICE_KEY  an API key the policy allows for agents "echo" and "down"
//   BOB_KEY    an API key no rule allows
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const timeout = 60_000;

async function connect(key, { elicit } = {}) {
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  const client = new Client({ name: 'bridge-fidelity', version: '0.0.0' }, { capabilities });
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, elicit);
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  }));
  return client;
}

function text(res) {
  return res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

test('agent cards are resources under deny-by-default, for whom the policy allows', async () => {
  const alice = await connect(process.env.ALICE_KEY);
  try {
    const { resources } = await alice.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('a2a://agents/echo/card'), `alice's resources: ${uris}`);
    const read = await alice.readResource({ uri: 'a2a://agents/echo/card' });
    const card = JSON.parse(read.contents[0].text);
    assert.ok(card.name, 'the card has a name');
  } finally {
    await alice.close();
  }
  const bob = await connect(process.env.BOB_KEY);
  try {
    const { resources } = await bob.listResources();
    assert.deepEqual(resources, [], 'bob sees no resource');
    await assert.rejects(bob.readResource({ uri: 'a2a://agents/echo/card' }));
  } finally {
    await bob.close();
  }
});

test("a down agent's tool is listed and its call names the cause", async () => {
  const client = await connect(process.env.ALICE_KEY);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('down') && names.includes('echo'), `tools: ${names}`);
    for (const n of names) {
      assert.match(n, /^[a-zA-Z0-9_-]{1,64}$/, `tool name ${n} breaks hosts' function-name rule`);
    }
    const res = await client.callTool({ name: 'down', arguments: { message: 'hi' } }, CallToolResultSchema, { timeout });
    assert.equal(res.isError, true);
    assert.match(text(res), /^agent down unreachable: fetching its card failed: .*connection refused/);
  } finally {
    await client.close();
  }
});

test('answers that do not fit the requested schema are asked again, never sent on empty', async () => {
  const answers = [{ name: 'Ada' }, {}, { response: 'Ada' }];
  const asked = [];
  const client = await connect(process.env.ALICE_KEY, {
    elicit: async (req) => {
      asked.push(req.params.message);
      assert.deepEqual(req.params.requestedSchema.required, ['response']);
      return { action: 'accept', content: answers[Math.min(asked.length - 1, answers.length - 1)] };
    },
  });
  try {
    const res = await client.callTool({ name: 'echo', arguments: { message: '/interview' } }, CallToolResultSchema, { timeout });
    assert.equal(res.isError ?? false, false, text(res));
    assert.match(text(res), /Hello, Ada!/);
    assert.doesNotMatch(text(res), /stranger/);
    assert.equal(asked.length, 3, `asked: ${JSON.stringify(asked)}`);
    assert.match(asked[1], /does not match the requested schema: response is required; name is not asked for/);
    assert.match(asked[2], /response is required/);
    assert.match(asked[2], /What is your name\?/);
  } finally {
    await client.close();
  }
});

test('two questions at once each reach the call that asked, one at a time', async () => {
  let n = 0;
  let open = 0;
  let maxOpen = 0;
  const client = await connect(process.env.ALICE_KEY, {
    elicit: async () => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      await new Promise((r) => setTimeout(r, 100));
      open--;
      n++;
      return { action: 'accept', content: { response: `caller${n}` } };
    },
  });
  try {
    const results = await Promise.all([1, 2].map(() =>
      client.callTool({ name: 'echo', arguments: { message: '/interview' } }, CallToolResultSchema, { timeout })));
    const all = results.map(text).join('\n');
    for (const r of results) {
      assert.equal(r.isError ?? false, false, text(r));
      assert.doesNotMatch(text(r), /did not answer|declin/);
    }
    assert.match(all, /Hello, caller1!/);
    assert.match(all, /Hello, caller2!/);
    assert.equal(maxOpen, 1, 'the host had two questions open at once');
  } finally {
    await client.close();
  }
});
