// Sampling through front.mcp: server-everything's trigger-sampling-request
// asks for an LLM completion during the call; the bridge relays
// sampling/createMessage to the host (the official MCP TypeScript client,
// with a sampling handler) and the host's answer back. Driven by
// flow_test.go.
//
// Environment: as progress-test.mjs (MCP_MODE, MCP_URL, MCP_STDIO);
// MCP_EXPECT "answer" (the host is asked) or "refused" (the host cannot be
// asked; the upstream gets an error).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const mode = process.env.MCP_MODE ?? 'http';
const expect = process.env.MCP_EXPECT ?? 'answer';

function transport() {
  if (mode === 'stdio') {
    const [command, ...rest] = JSON.parse(process.env.MCP_STDIO);
    return new StdioClientTransport({ command, args: rest, env: { ...process.env }, stderr: 'inherit' });
  }
  return new StreamableHTTPClientTransport(new URL(process.env.MCP_URL));
}

test(`sampling through front.mcp (${mode}): ${expect}`, async () => {
  const client = new Client({ name: 'bridge-interop-sampling', version: '0.0.0' }, { capabilities: { sampling: {} } });
  const asked = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    asked.push(req.params.messages[0].content.text);
    return { role: 'assistant', model: 'interop-model', content: { type: 'text', text: 'a bridged sample' }, stopReason: 'endTurn' };
  });
  await client.connect(transport());
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'trigger-sampling-request'), `tools: ${tools.map((t) => t.name)}`);
    const res = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 20 } }, CallToolResultSchema, { timeout: 60_000 });
    const text = res.content.map((c) => c.text ?? '').join('\n');
    if (expect === 'answer') {
      assert.equal(res.isError ?? false, false, text);
      assert.equal(asked.length, 1);
      assert.match(asked[0], /say hi/);
      assert.match(text, /a bridged sample/);
      assert.match(text, /interop-model/);
    } else {
      assert.equal(asked.length, 0, 'the stateless face asked the host');
      assert.doesNotMatch(text, /a bridged sample/);
    }
  } finally {
    await client.close();
  }
});
