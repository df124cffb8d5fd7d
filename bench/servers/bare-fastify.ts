/** Child process of the reference-server benchmark: a bare Fastify hello-world, the baseline. */
import Fastify from 'fastify';
import { answerProbes } from './probes.ts';

const app = Fastify({ logger: false });
app.get('/v1/regions', async () => ({ hello: 'world' }));
// The floor of a JSON POST in Fastify (body read and parsed, 201 with a small object): what the
// send path pays before any of the reference server's own work.
app.post('/v1/sms/send', async (request, reply) =>
  reply.status(201).send({ message_id: 'msg_0', to: (request.body as { to?: string }).to, status: 'sent' }),
);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ baseUrl: `http://127.0.0.1:${port}/v1` })}\n`);
answerProbes(() => app.close());
