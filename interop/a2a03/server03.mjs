// An A2A 0.3 agent written on @a2a-js/sdk 0.3.14 (npm alias "a2a03"), the
// upstream of the tests in which the bridge fronts or exposes a 0.3 agent.
//
// It has the behaviour of `bridge demo`, selected by the first text part:
//   any text     -> working -> artifact "echo: <text>" -> completed
//   /interview   -> input-required "What is your name?"; the next message on the
//                   same task -> artifact "Hello, <reply>!" -> completed
//   /slow N      -> working for N seconds, one status update per second, cancellable
//   /fail        -> failed with a status message
//   /message     -> a direct message reply (no task)
//
// JSON-RPC is served at /a2a/jsonrpc, HTTP+JSON at /a2a/rest, the card at
// /.well-known/agent-card.json (a 0.3 card: url, preferredTransport,
// additionalInterfaces, protocolVersion 0.3.0), and GET /seen lists what
// each request carried (the JSON-RPC method or the HTTP+JSON path, the
// A2A-Version header, configuration.blocking) so that the tests can check
// how the bridge speaks to a 0.3 agent; GET /canceled lists the ids of the
// tasks it canceled.
//
// Environment: PORT (0 picks a free port), HOST (default 127.0.0.1).
// On startup it prints one line "listening http://HOST:PORT".

import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore, InMemoryPushNotificationStore, DefaultPushNotificationSender } from 'a2a03/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a03/server/express';

const host = process.env.HOST || '127.0.0.1';
const port = Number(process.env.PORT ?? 0);
const seen = [];
const canceledTasks = []; // ids of the tasks cancelTask ended

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => new Date().toISOString();

function agentMessage(taskId, contextId, text) {
  const m = { kind: 'message', messageId: crypto.randomUUID(), role: 'agent', parts: [{ kind: 'text', text }], contextId };
  if (taskId) m.taskId = taskId;
  return m;
}

function firstText(message) {
  for (const p of message?.parts ?? []) if (p.kind === 'text') return p.text;
  return '';
}

class DemoExecutor {
  canceled = new Set();

  status(bus, taskId, contextId, state, text, final = false) {
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId,
      status: { state, message: text === undefined ? undefined : agentMessage(taskId, contextId, text), timestamp: now() },
      final,
    });
  }

  artifact(bus, taskId, contextId, text) {
    bus.publish({
      kind: 'artifact-update',
      taskId,
      contextId,
      artifact: { artifactId: crypto.randomUUID(), name: 'result', parts: [{ kind: 'text', text }] },
      lastChunk: true,
    });
  }

  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const msg = ctx.userMessage;
    const text = firstText(msg).trim();
    if (text === '/message' && !ctx.task) {
      bus.publish(agentMessage(undefined, contextId, `echo: ${text}`));
      bus.finished();
      return;
    }
    if (!ctx.task) {
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: now() }, history: [msg] });
    }
    if (ctx.task?.status?.state === 'input-required') {
      this.status(bus, taskId, contextId, 'working', 'Thanks.');
      this.artifact(bus, taskId, contextId, `Hello, ${text}!`);
      this.status(bus, taskId, contextId, 'completed', undefined, true);
      bus.finished();
      return;
    }
    if (text === '/interview') {
      this.status(bus, taskId, contextId, 'input-required', 'What is your name?', true);
      bus.finished();
      return;
    }
    if (text === '/fail') {
      this.status(bus, taskId, contextId, 'failed', 'demo failure requested', true);
      bus.finished();
      return;
    }
    const slow = /^\/slow\s+(\d+)$/.exec(text);
    if (slow) {
      const n = Math.min(Number(slow[1]), 600);
      for (let i = 1; i <= n; i++) {
        if (this.canceled.has(taskId)) return;
        this.status(bus, taskId, contextId, 'working', `working ${i}/${n}`);
        await sleep(1000);
      }
      if (this.canceled.has(taskId)) return;
      this.artifact(bus, taskId, contextId, `slept ${n}s`);
      this.status(bus, taskId, contextId, 'completed', undefined, true);
      bus.finished();
      return;
    }
    this.status(bus, taskId, contextId, 'working', 'Working on it.');
    this.artifact(bus, taskId, contextId, `echo: ${text}`);
    this.status(bus, taskId, contextId, 'completed', undefined, true);
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    this.canceled.add(taskId);
    canceledTasks.push(taskId);
    this.status(bus, taskId, '', 'canceled', undefined, true);
    bus.finished();
  }
}

const app = express();
const server = app.listen(port, host, () => {
  const addr = server.address();
  const baseUrl = `http://${host}:${addr.port}`;
  const card = {
    name: 'a2a-js 0.3 echo agent',
    description: 'An A2A 0.3 agent on @a2a-js/sdk 0.3.14 for the bridge interop tests',
    url: `${baseUrl}/a2a/jsonrpc`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: `${baseUrl}/a2a/jsonrpc`, transport: 'JSONRPC' },
      { url: `${baseUrl}/a2a/rest`, transport: 'HTTP+JSON' },
    ],
    protocolVersion: '0.3.0',
    version: '0.3.14',
    provider: { organization: 'a2a-mcp-bridge interop', url: 'https://example.invalid/' },
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text; /interview, /slow N, /fail, /message change behaviour', tags: ['echo'] }],
  };
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new DemoExecutor(), undefined, pushStore, new DefaultPushNotificationSender(pushStore));
  app.get('/seen', (_req, res) => res.json(seen));
  app.get('/canceled', (_req, res) => res.json(canceledTasks));
  app.use('/a2a/jsonrpc', express.json(), (req, _res, next) => {
    seen.push({
      method: req.body?.method,
      version: req.get('A2A-Version') ?? null,
      blocking: req.body?.params?.configuration?.blocking ?? null,
    });
    next();
  });
  app.use('/a2a/rest', express.json(), (req, _res, next) => {
    seen.push({
      method: `${req.method} ${req.path}`,
      version: req.get('A2A-Version') ?? null,
      blocking: req.body?.configuration?.blocking ?? null,
    });
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.get('/healthz', (_req, res) => res.send('ok'));
  console.log(`listening ${baseUrl}`);
});

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
