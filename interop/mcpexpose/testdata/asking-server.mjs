// An MCP server on the official TypeScript SDK, over stdio, whose one tool
// asks the user for a name (elicitation/create, 2025-11-25: the request
// names no call) and answers with annotated text and a titled resource link.
// Driven by publish_asking_test.go.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'asking', version: '0.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'ask', description: 'Asks for a name, then greets.', inputSchema: { type: 'object', properties: {} } }],
}));

server.setRequestHandler(CallToolRequestSchema, async () => {
  const r = await server.elicitInput({
    message: 'What is your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] },
  });
  if (r.action !== 'accept') {
    return { content: [{ type: 'text', text: `no name (${r.action})` }] };
  }
  return {
    content: [
      { type: 'text', text: `Hello, ${r.content.name}!`, annotations: { audience: ['user'], priority: 0.5 }, _meta: { 'example.com/greeting': true } },
      { type: 'resource_link', uri: 'https://files.example/greeting.txt', name: 'greeting.txt', title: 'Greeting', description: 'The greeting, as a file', mimeType: 'text/plain' },
    ],
  };
});

await server.connect(new StdioServerTransport());
