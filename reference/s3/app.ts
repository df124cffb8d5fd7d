import Fastify, { type FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../core/context.ts';
import type { FaultDefinition } from '../core/faults.ts';

export const S3_FAULTS: FaultDefinition[] = [];

/** The S3-compatible endpoint (its own port, path-style). Placeholder until the S3 issue lands. */
export async function buildS3App(_ctx: ReferenceContext): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.all('/*', async (_request, reply) => {
    void reply
      .status(501)
      .type('application/xml')
      .send('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>Not implemented yet.</Message></Error>');
  });
  return app;
}
