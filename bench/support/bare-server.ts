/**
 * The baseline: a bare `node:http` server answering one fixed JSON document, the same bytes as a
 * public link. It does nothing a real service must do (no routing, validation or database), so the
 * ratio against it is the cost of everything the service does.
 */
import { createServer } from 'node:http';

const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const body = process.env.BARE_BODY ?? '{"status":"ok"}';

createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  let received = '';
  req.on('data', (chunk) => (received += chunk));
  req.on('end', () => {
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
