// A shop's Express server with the proxy mounted at /paylink: the API key stays here.
import express from 'express';
import { createPaylinkProxy, toNodeHandler } from 'paylink/proxy';
import { serveBundle } from 'paylink/server';

const app = express();
app.use(
  '/paylink',
  toNodeHandler(
    createPaylinkProxy({
      upstream: process.env.PAYLINK_URL,
      apiKey: process.env.PAYLINK_API_KEY,
      adminToken: process.env.PAYLINK_ADMIN_TOKEN,
      allowedOrigins: ['http://shop.test'],
      bundles: serveBundle, // /paylink/dist/* from the installed package
    }),
  ),
);
app.get('/', (_req, res) => res.type('text/plain').send('my shop'));
const server = app.listen(0, '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
