/**
 * POST /vps against the catalogue (Endpoints / Compute): what names no region, image or size of
 * GET /regions, /images and /sizes is refused. Valid values are exercised by every flow that
 * creates a VPS; these checks give each unknown value a request of its own.
 */
import { defineCheck } from '../../src/harness/check.ts';
import { expectRefused, resourceOf } from '../../src/harness/resource.ts';
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
