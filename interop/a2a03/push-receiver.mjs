// A push notification receiver for the interop tests: it records every POST
// (its body and the X-A2A-Notification-Token / A2A-Notification-Token
// headers) and lists them at GET /received. PORT and HOST pick the address;
// GET /healthz answers ok.
import http from 'node:http';

const received = [];
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.end('ok');
    return;
  }
  if (req.method === 'GET' && req.url === '/received') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(received));
    return;
  }
  if (req.method !== 'POST') {
    res.statusCode = 405;
    res.end();
    return;
  }
  let data = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (data += c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(data);
    } catch {
      body = data;
    }
    received.push({
      path: req.url,
      token: req.headers['x-a2a-notification-token'] ?? null,
      token10: req.headers['a2a-notification-token'] ?? null,
      body,
    });
    res.statusCode = 200;
    res.end();
  });
});
server.listen(Number(process.env.PORT || 0), process.env.HOST || '127.0.0.1');
