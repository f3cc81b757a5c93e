// The official MCP TypeScript client calls a progress-reporting tool through
// the bridge RUNS times and checks, at each result, that every progress
// notification the upstream sent had already arrived, in order. Driven by
// flow_test.go (go test -tags interop ./interop/mcpflow/).
//
// Environment:
//   MCP_MODE    "http" or "stdio"
//   MCP_URL     the /mcp endpoint (http)
//   MCP_STDIO   JSON array: the command serving the face over stdio and its arguments
//   MCP_TOOL    the tool to call
//   MCP_ARGS    JSON object: its arguments
//   MCP_STEPS   the number of progress notifications each call sends
//   RUNS        how many calls (default 50)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const mode = process.env.MCP_MODE ?? 'http';
const tool = process.env.MCP_TOOL;
const args = JSON.parse(process.env.MCP_ARGS ?? '{}');
const steps = Number(process.env.MCP_STEPS);
const runs = Number(process.env.RUNS ?? 50);

function transport() {
  if (mode === 'stdio') {
    const [command, ...rest] = JSON.parse(process.env.MCP_STDIO);
    return new StdioClientTransport({ command, args: rest, env: { ...process.env }, stderr: 'inherit' });
  }
  return new StreamableHTTPClientTransport(new URL(process.env.MCP_URL));
}

test(`every progress notification precedes its result, ${runs} runs`, async () => {
  const client = new Client({ name: 'bridge-interop-flow', version: '0.0.0' }, { capabilities: {} });
  await client.connect(transport());
  const short = [];
  try {
    for (let run = 0; run < runs; run++) {
      const seen = [];
      const res = await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
        timeout: 60_000,
        onprogress: (p) => seen.push(p.progress),
      });
      // The SDK drops a call's progress handler when its result arrives:
      // what seen holds now is what came before the result.
      const atResult = [...seen];
      assert.equal(res.isError ?? false, false, JSON.stringify(res.content));
      for (let i = 1; i < atResult.length; i++) {
        assert.ok(atResult[i] > atResult[i - 1], `run ${run}: progress out of order: ${atResult}`);
      }
      if (atResult.length !== steps) {
        short.push(`run ${run}: ${atResult.length} of ${steps} (${atResult})`);
      }
    }
  } finally {
    await client.close();
  }
  assert.deepEqual(short, [], `calls whose result came before all their progress: ${short.length} of ${runs}`);
  console.log(`progress ordering: ${runs}/${runs} calls had all ${steps} notifications before the result`);
});
