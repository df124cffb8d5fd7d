/**
 * POST /vps against the catalogue (Endpoints / Compute): what names no region, image or size of
 * GET /regions, /images and /sizes is refused (valid values are the VPS lifecycle flow's first
 * step), and an SSH key of POST /ssh-keys is taken by its id in `ssh_keys`.
 */
import {
  defineCheck,
  expect,
  expectRefused,
  expectResource,
  expectSuccess,
  listOf,
  resourceOf,
  RUN_PREFIX,
} from '../../src/harness/check.ts';
import type { ApiClient, CheckContext } from '../../src/harness/check.ts';
import { sshEd25519PublicKey } from '../../src/generate/data.ts';
import { computeCatalogue } from '../flows/_compute.ts';

defineCheck(
  {
    id: 'compute.create.unknown-catalogue-values',
    requirement: 'VPS-CRT-007',
    level: 'MUST',
    class: 'compute',
    operation: 'POST /vps',
    title: 'POST /vps refuses a region, an image and a size that the catalogue does not list',
  },
  async ({ api, ledger, ctx }) => {
    const { region, image, size } = await computeCatalogue(api);
    const valid = { region, image, size: size.slug };
    for (const field of ['region', 'image', 'size'] as const) {
      const body = { name: ctx.name('vps-unknown'), ...valid, [field]: `cc-no-such-${field}` };
      const res = await api.post('/vps', body);
      // Whatever a lenient target created is cleaned up, before the verdict.
      const created = res.status < 300 ? resourceOf<{ id?: string }>(res.body, 'vps') : undefined;
      if (created?.id) ledger.track('vps', created.id);
      expectRefused(res, `POST /vps with an unknown ${field}`);
    }
  },
);

/**
 * The id of an SSH key cloudcheck added with POST /ssh-keys. The specification has no DELETE for
 * SSH keys, so a key an earlier run added (named with the cloudcheck prefix) is used again
 * rather than adding one more to the account on every run.
 */
async function cloudcheckSshKey(api: ApiClient, ctx: CheckContext): Promise<string> {
  const listed = await api.get('/ssh-keys');
  expectSuccess(listed);
  const earlier = (listOf<{ id?: unknown; name?: unknown }>(listed.body, 'ssh_keys') ?? []).find(
    (k) => typeof k.id === 'string' && String(k.name).startsWith(RUN_PREFIX),
  );
  if (earlier) return earlier.id as string;
  const res = await api.post('/ssh-keys', {
    name: ctx.name('ssh-key'),
    public_key: sshEd25519PublicKey(ctx.faker, 'cloudcheck', ctx.runPrefix),
  });
  return String(expectResource<{ id: string }>(res, 'ssh_key').id);
}

defineCheck(
  {
    id: 'compute.create.ssh-key-id',
    requirement: 'SSH-KEY-003',
    level: 'MUST',
    class: 'compute',
    operation: 'POST /vps',
    title: 'POST /vps accepts the id of an SSH key added with POST /ssh-keys in ssh_keys',
  },
  async ({ api, ledger, ctx }) => {
    const keyId = await cloudcheckSshKey(api, ctx);
    const { region, image, size } = await computeCatalogue(api);
    const res = await api.post('/vps', {
      name: ctx.name('vps-ssh'),
      region,
      image,
      size: size.slug,
      ssh_keys: [keyId],
    });
    const created = res.status < 300 ? resourceOf<{ id?: string }>(res.body, 'vps') : undefined;
    if (created?.id) ledger.track('vps', created.id);
    expectSuccess(res, `ssh_keys: [${keyId}], the id POST /ssh-keys gave`);
    expect(typeof created?.id, 'the created VPS has an id').toBe('string');
  },
);
