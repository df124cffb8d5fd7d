/** Child process of the reference-server benchmark: a bare Fastify hello-world, the baseline. */
import Fastify from 'fastify';
import { answerProbes } from './probes.ts';

const app = Fastify({ logger: false });
app.get('/v1/regions', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ baseUrl: `http://127.0.0.1:${port}/v1` })}\n`);
answerProbes(() => app.close());
