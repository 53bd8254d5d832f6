#!/usr/bin/env node
/**
 * The ceiling the ingress is measured against: a bare Fastify 5 server on 127.0.0.1 answering
 * `POST /workflow-webhooks/:id` with 202 and a small JSON body, parsing the JSON body as Fastify
 * does by default, and `GET` (a handshake's ceiling) with 200 and the query echoed. No logging, no
 * store, no auth. Prints its port on stdout, then serves until
 * SIGTERM.
 *
 *   node scripts/bench/bare-fastify.mjs [port]
 */
/* global URL */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/workflow-webhooks/:id', async (request, reply) => {
  reply.code(202);
  return { delivery_id: 'dlv_bare', run_id: 'run_bare', status: 'accepted', bytes: JSON.stringify(request.body).length };
});
app.get('/workflow-webhooks/:id', async (request) => JSON.stringify(request.query));
const address = await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
process.stdout.write(`${new URL(address).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
