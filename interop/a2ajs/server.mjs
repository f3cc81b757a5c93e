// Reference A2A 1.0 agent written on @a2a-js/sdk, used to validate the
// interop harness (client-test.mjs, the Go client test and the TCK run)
// before the bridge exists, and as the "foreign server" for our Go client.
//
// It mirrors the behaviour of `bridge demo`, selected by the first text part:
//   any text     -> WORKING (status message) -> artifact "echo: <text>" -> COMPLETED
//   /interview   -> INPUT_REQUIRED "What is your name?"; the next message on the
//                   same task -> artifact "Hello, <reply>!" -> COMPLETED
//   /slow N      -> WORKING for N seconds, one status update per second, cancellable
//   /fail        -> FAILED with a status message
//   /message     -> a direct Message reply (no task)
//
// Environment:
//   PORT  TCP port to listen on (default 41241; 0 picks a free port)
//   HOST  address to bind (default 127.0.0.1; only loopback is allowed here)
//   A2A_JS_PUSH=1  declare and serve push-notification configs
//   BASE_PATH  serve the `bridge demo` layout under this path (e.g. /a2a/echo):
//              JSON-RPC by POST to BASE_PATH, HTTP+JSON under BASE_PATH/rest, the
//              card at BASE_PATH/.well-known/agent-card.json and at the root.
//              Unset: JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest, card at the root.
//   A2A_JS_GRPC=also  also serve the agent over gRPC (@a2a-js/sdk/server/grpc on
//                     @grpc/grpc-js, plain HTTP/2) on a free port of HOST; the card
//                     lists the GRPC interface (HOST:PORT) last
//   A2A_JS_GRPC=only  serve it over gRPC only: the card, still served over HTTP with
//                     /healthz, lists the GRPC interface alone
//
// On startup it prints one line "listening http://HOST:PORT" to stdout.

import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  DefaultPushNotificationSender,
} from '@a2a-js/sdk/server';
import {
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
  UserBuilder,
} from '@a2a-js/sdk/server/express';
import * as grpc from '@grpc/grpc-js';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';

const host = process.env.HOST || '127.0.0.1';
const port = Number(process.env.PORT ?? 41241);
const push = process.env.A2A_JS_PUSH === '1';
const basePath = (process.env.BASE_PATH || '').replace(/\/+$/, '');
const jsonRpcPath = basePath || '/a2a/jsonrpc';
const restPath = basePath ? `${basePath}/rest` : '/a2a/rest';
const grpcMode = process.env.A2A_JS_GRPC || '';
if (!['', 'also', 'only'].includes(grpcMode)) {
  console.error(`server: A2A_JS_GRPC=${grpcMode}: want also or only`);
  process.exit(2);
}

function textPart(text) {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

function agentMessage(taskId, contextId, text) {
  return {
    messageId: crypto.randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function firstText(message) {
  for (const p of message?.parts ?? []) {
    if (p.content?.$case === 'text') return p.content.value;
  }
  return '';
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class DemoExecutor {
  constructor() {
    /** @type {Set<string>} */
    this.canceled = new Set();
  }

  status(bus, taskId, contextId, state, text) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          message: text === undefined ? undefined : agentMessage(taskId, contextId, text),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
  }

  artifact(bus, taskId, contextId, text) {
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: crypto.randomUUID(),
          name: 'result',
          description: '',
          parts: [textPart(text)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
  }

  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const msg = ctx.userMessage;
    const text = firstText(msg).trim();

    if (text === '/message' && !ctx.task) {
      bus.publish(AgentEvent.message(agentMessage('', contextId, `echo: ${text}`)));
      bus.finished();
      return;
    }

    // Every turn starts with the task (new, or the stored one for a follow-up).
    const task = ctx.task
      ? { ...ctx.task, history: [...(ctx.task.history ?? []), msg] }
      : {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [msg],
          metadata: undefined,
        };
    bus.publish(AgentEvent.task(task));

    if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      this.status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING, 'Thanks.');
      this.artifact(bus, taskId, contextId, `Hello, ${text}!`);
      this.status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED);
      bus.finished();
      return;
    }

    if (text === '/interview') {
      this.status(bus, taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, 'What is your name?');
      bus.finished();
      return;
    }

    if (text === '/fail') {
      this.status(bus, taskId, contextId, TaskState.TASK_STATE_FAILED, 'demo failure requested');
      bus.finished();
      return;
    }

    const slow = /^\/slow\s+(\d+)$/.exec(text);
    if (slow) {
      const n = Math.min(Number(slow[1]), 600);
      for (let i = 1; i <= n; i++) {
        if (this.canceled.has(taskId)) return; // cancelTask published CANCELED
        this.status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING, `working ${i}/${n}`);
        await sleep(1000);
      }
      if (this.canceled.has(taskId)) return;
      this.artifact(bus, taskId, contextId, `slept ${n}s`);
      this.status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED);
      bus.finished();
      return;
    }

    this.status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING, 'Working on it.');
    this.artifact(bus, taskId, contextId, `echo: ${text}`);
    this.status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED);
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    this.canceled.add(taskId);
    // contextId is not known here; the handler stores by taskId.
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  }
}

function makeCard(baseUrl, grpcAddr) {
  const grpcIface = { url: grpcAddr, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' };
  const httpIfaces = [
    { url: `${baseUrl}${jsonRpcPath}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${baseUrl}${restPath}`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
  ];
  return {
    name: 'a2a-js echo agent',
    description: 'Reference echo agent on @a2a-js/sdk for the bridge interop harness',
    supportedInterfaces: grpcMode === 'only' ? [grpcIface] : grpcMode === 'also' ? [...httpIfaces, grpcIface] : httpIfaces,
    provider: { organization: 'a2a-mcp-bridge interop', url: 'https://example.invalid/' },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: push, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Echoes text; /interview, /slow N, /fail, /message change behaviour',
        tags: ['echo', 'test'],
        examples: ['hello', '/interview', '/slow 3'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

// bindGrpc serves nothing yet: it reserves the gRPC port, so that the card
// can name it; the service is added once the handler exists.
function bindGrpc() {
  if (!grpcMode) return Promise.resolve(undefined);
  const gs = new grpc.Server();
  return new Promise((resolve, reject) => {
    gs.bindAsync(`${host}:0`, grpc.ServerCredentials.createInsecure(), (err, gport) => (err ? reject(err) : resolve({ gs, gport })));
  });
}

const grpcBound = await bindGrpc();
const grpcServer = grpcBound?.gs;
const app = express();
const server = app.listen(port, host, () => {
  const addr = server.address();
  const baseUrl = `http://${host}:${addr.port}`;
  const card = makeCard(baseUrl, grpcBound ? `${host}:${grpcBound.gport}` : '');
  const pushStore = push ? new InMemoryPushNotificationStore() : undefined;
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new DemoExecutor(),
    undefined,
    pushStore,
    push ? new DefaultPushNotificationSender(pushStore) : undefined,
  );
  const userBuilder = UserBuilder.noAuthentication;
  const cardHandler = agentCardHandler({ agentCardProvider: handler });
  app.use(`/${AGENT_CARD_PATH}`, cardHandler);
  if (basePath) app.use(`${basePath}/${AGENT_CARD_PATH}`, cardHandler);
  // REST first: with BASE_PATH its prefix lies inside the JSON-RPC one.
  if (grpcMode !== 'only') {
    app.use(restPath, restHandler({ requestHandler: handler, userBuilder }));
    app.use(jsonRpcPath, jsonRpcHandler({ requestHandler: handler, userBuilder }));
  }
  if (grpcServer) {
    grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication }));
    console.log(`grpc ${host}:${grpcBound.gport}`);
  }
  app.get('/healthz', (_req, res) => res.send('ok'));
  console.log(`listening ${baseUrl}${basePath}`);
});

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    grpcServer?.forceShutdown();
    server.close(() => process.exit(0));
  });
}
