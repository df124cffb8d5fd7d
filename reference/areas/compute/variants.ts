/**
 * Legal variants of the compute area (`cloudcheck serve --variant NAME[=MS]`): the timing of a
 * real cloud, which the specification leaves open (core/variants.ts).
 */
import type { VariantDefinition } from '../../core/variants.ts';

export const COMPUTE_VARIANTS = [
  {
    name: 'vps-boot-slow',
    departsFrom: [],
    allowedBy: 'States and transitions: POST /vps answers `creating`; when it becomes running: not shown',
    description:
      'A new VPS stays `creating` for MS milliseconds (default 60000) before it runs, as a real cloud takes a minute to boot.',
    defaultMs: 60_000,
  },
  {
    name: 'actions-async',
    departsFrom: ['VPS-ACT-005'],
    allowedBy:
      'States and transitions: "resulting states of actions start, stop, restart, resize, snapshot, rebuild: not shown"',
    description:
      'start, stop and restart answer at once with the VPS `starting`, `stopping` or `restarting` (action `in-progress`) and reach the final state after MS milliseconds (default 3000).',
    defaultMs: 3_000,
  },
  {
    name: 'vps-actions-idempotent',
    departsFrom: ['VPS-ACT-008'],
    allowedBy:
      'States and transitions: "resulting states of actions start, stop, restart, resize, snapshot, rebuild: not shown"',
    description: 'start on a running VPS and stop on a stopped one answer a completed action that changes nothing.',
  },
  {
    name: 'units-linode',
    departsFrom: ['VPS-UNIT-001'],
    allowedBy: 'Resources and their fields: VPS `memory`, `disk` and size `transfer` (units: not shown)',
    description:
      'Disk is given in MB and transfer in GB (memory stays MB), as Linode gives them, in sizes and VPS records alike.',
  },
] as const satisfies readonly VariantDefinition[];
