/** Playwright global teardown: stops the embedded server if the global setup started one. */
import { closeEmbedded } from './global-setup.ts';

export default async function globalTeardown(): Promise<void> {
  await closeEmbedded();
}
