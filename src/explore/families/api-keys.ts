/**
 * API keys: create (named with the run prefix), use the new key, revoke, and the listing. Every
 * key a sequence creates is revoked at its end if a step did not revoke it, and carries an
 * `expires_at` an hour ahead besides, so a key whose revocation never happened (a killed process)
 * dies on its own. The specification sets no limit on keys per account; a sequence still creates
 * three at most, so that it leaves the account as it found it within a few requests.
 *
 * A use of a sequence's key is GET /account sent with exactly that key (outside the budget's
 * keys). Key management goes through the sequence's newest live key when it has one, else through
 * the family's own key (created when first needed, revoked at tear-down, replaced by a new one
 * before its billing window runs out), as the harness's run keys (read and write too) manage keys in
 * `cloudcheck run`. So the api-keys sequences never spend the budget's billing windows (100/h a
 * key), which the other families and the revocation of the run keys need. Where the specification
 * is silent the model accepts every choice: the code of a refusal (401, 403), of a success, and
 * the body of a revocation.
 */
import fc from 'fast-check';
import { listOf, resourceOf } from '../../harness/body-shape.ts';
import { addSecret } from '../../harness/redact.ts';
import { ExploreSetupError, argNumber, argString, compareSettled, expectOk, ok, short, step } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { ExploreTarget, SequenceTarget } from '../target.ts';

interface KeyState {
  id: string;
  /** The full secret, shown once by the creation (registered for redaction at once). */
  secret: string;
  name: string;
  /** Revoked ones stay in the list, so commands can still aim at them by position. */
  revoked: boolean;
  /** The expires_at it was created with. */
  expiresAt: string;
}

class KeysState {
  /** In creation order. */
  readonly keys: KeyState[] = [];
}

const keysOf = (model: ExploreModel): KeysState => model.part('api-keys', () => new KeysState());
const keyPath = (id: string): string => `/account/api-keys/${encodeURIComponent(id)}`;
const HOUR_MS = 3_600_000;
/** Billing requests a family key sends before it is replaced (the window is 100 an hour; a few kept for the replacement). */
const ROTATE_AFTER = 90;
/** The family key's lifetime, in case its revocation never happens (an exploration ends well before). */
const FAMILY_KEY_LIFETIME_MS = 3 * HOUR_MS;

/**
 * A created key as the creation answered it (id and secret), or what went wrong and the
 * requirement that makes it a finding: a valid creation refused ("also accepts an optional
 * expires_at"), or an answer without the key.
 */
async function createKey(
  target: SequenceTarget,
  name: string,
  lifetimeMs: number,
  key: string | undefined,
): Promise<
  | { id: string; secret: string; expiresAt: string; created: Record<string, unknown> }
  | { refused: string; requirement: 'KEY-CRT-002' | 'KEY-CRT-003' }
> {
  // Whole seconds: a target may write timestamps without a fraction.
  const expiresAt = new Date(Math.ceil((Date.now() + lifetimeMs) / 1000) * 1000).toISOString();
  const res = await target.send('POST', '/account/api-keys', {
    json: { name, permissions: ['read', 'write'], expires_at: expiresAt },
    key,
  });
  if (!ok(res)) return { refused: `${res.status} ${short(res.text)}`, requirement: 'KEY-CRT-002' };
  const created = resourceOf(res.body, 'api_key');
  if (typeof created?.id !== 'string' || typeof created.key !== 'string')
    return { refused: `no api_key with id and key: ${short(res.text)}`, requirement: 'KEY-CRT-003' };
  addSecret(created.key);
  return { id: created.id, secret: created.key, expiresAt, created };
}

/** Whether a record's `expires_at` is the instant sent (any ISO 8601 form of it: a target may write it with an offset). */
const sameInstant = (value: unknown, sent: string): boolean =>
  typeof value === 'string' && Date.parse(value) === Date.parse(sent);

/** "A key created with one reports that instant", wherever a record of the key shows it. */
function checkExpiry(key: KeyState, record: Record<string, unknown>, where: string): void {
  if (!sameInstant(record.expires_at, key.expiresAt))
    throw new ModelViolation(
      'KEY-FLD-002',
      where,
      `expires_at ${key.expiresAt} (as created)`,
      JSON.stringify(record.expires_at ?? null),
    );
}

/** The family's own key for key management: its billing window instead of the budget's. */
class FamilyKey {
  private uses = 0;
  private generation = 1;
  constructor(
    private id: string,
    private secret: string,
  ) {}

  /** The key for one more billing request, replaced first when its window is nearly spent. */
  async take(target: SequenceTarget): Promise<string> {
    if (this.uses >= ROTATE_AFTER) await this.rotate(target);
    this.uses++;
    return this.secret;
  }

  /** A new family key created with the old one, which the new one then revokes. */
  private async rotate(target: SequenceTarget): Promise<void> {
    const next = await createKey(
      target,
      target.resourceName(`keys-${++this.generation}`),
      FAMILY_KEY_LIFETIME_MS,
      this.secret,
    );
    if ('refused' in next) throw new Error(`could not replace the api-keys family's key: ${next.refused}`);
    const old = this.id;
    [this.id, this.secret, this.uses] = [next.id, next.secret, 1];
    const revoked = await target.send('DELETE', keyPath(old), { key: this.secret });
    if (!ok(revoked)) target.warn(`could not revoke the api-keys family's key ${old} (it expires within 3 h)`);
  }

  async revoke(target: SequenceTarget): Promise<void> {
    const res = await target.send('DELETE', keyPath(this.id), { key: this.secret });
    if (!ok(res)) target.warn(`could not revoke the api-keys family's key ${this.id} (it expires within 3 h)`);
  }
}

const familyKeys = new WeakMap<ExploreTarget, Promise<FamilyKey>>();

/**
 * The family's key, created with a key of the budget the first time a sequence needs it (not at
 * set-up: a finding of another family would replay its creation in `explore-repro.sh`). A refusal
 * is the session's error, not a finding.
 */
function familyKeyOf(target: SequenceTarget): Promise<FamilyKey> {
  let key = familyKeys.get(target.exploration);
  if (!key) {
    key = createKey(target, target.resourceName('keys-1'), FAMILY_KEY_LIFETIME_MS, undefined).then((created) => {
      if ('refused' in created)
        throw new ExploreSetupError(
          `could not create the api-keys family's key: ${created.refused} (leave the family out with --families)`,
        );
      return new FamilyKey(created.id, created.secret);
    });
    familyKeys.set(target.exploration, key);
  }
  return key;
}

/** The key that sends a management request of the sequence: its newest live key other than `except`, else the family's key. */
async function managingKey(model: ExploreModel, target: SequenceTarget, except?: KeyState): Promise<string> {
  const live = keysOf(model)
    .keys.filter((k) => !k.revoked && k !== except)
    .at(-1);
  return live?.secret ?? (await familyKeyOf(target)).take(target);
}

/** Keys a sequence creates at most: enough for a revocation between two creations, whatever the order. */
const MAX_KEYS = 3;

class CreateKey implements ExploreCommand {
  constructor(readonly label: string) {}
  get record(): StepRecord {
    return { op: 'create-key', args: { label: this.label } };
  }
  check(model: ExploreModel): boolean {
    return keysOf(model).keys.length < MAX_KEYS;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(apiKeys, this, target, async () => {
      const name = target.resourceName(this.label);
      // An hour or two, by label: keys that expire at different instants (each one's own is what every record shows).
      const lifetime = (1 + (this.label.charCodeAt(this.label.length - 1) % 2)) * HOUR_MS;
      const created = await createKey(target, name, lifetime, await managingKey(model, target));
      if ('refused' in created)
        throw new ModelViolation(
          created.requirement,
          'POST /account/api-keys',
          'the key created, with its id and secret',
          created.refused,
        );
      const id = created.id;
      target.track(keyPath(id), async () =>
        target.send('DELETE', keyPath(id), { key: await (await familyKeyOf(target)).take(target) }),
      );
      const key: KeyState = { id, secret: created.secret, name, revoked: false, expiresAt: created.expiresAt };
      keysOf(model).keys.push(key);
      checkExpiry(key, created.created, 'POST /account/api-keys');
    });
  }
  toString(): string {
    return `create-key ${this.label}`;
  }
}

/** Index into the sequence's keys (live ones only, or all), taken modulo how many there are when it runs. */
function keyAt(model: ExploreModel, index: number, live: boolean): KeyState | undefined {
  const pool = live ? keysOf(model).keys.filter((k) => !k.revoked) : keysOf(model).keys;
  return pool.length ? pool[index % pool.length] : undefined;
}

/** A request made with a key of the sequence: served while it is not revoked, refused once it is. */
class UseKey implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'use-key', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return keyAt(model, this.index, false) !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(apiKeys, this, target, async () => {
      const key = keyAt(model, this.index, false)!;
      const res = await target.send('GET', '/account', { key: key.secret });
      if (key.revoked) {
        if (ok(res))
          throw new ModelViolation(
            'KEY-REVOKE-001',
            `GET /account with the revoked key ${key.name}`,
            'refused as unauthenticated',
            `${res.status} (served)`,
          );
        return;
      }
      expectOk(
        res,
        'AUTH-KEY-003',
        `GET /account with the key ${key.name} (read and write, not revoked, expiring in an hour)`,
      );
    });
  }
  toString(): string {
    return `use-key #${this.index}`;
  }
}

class RevokeKey implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'revoke-key', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return keyAt(model, this.index, true) !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(apiKeys, this, target, async () => {
      const key = keyAt(model, this.index, true)!;
      // Revoked with another key of the sequence: whether a key may revoke itself is not shown.
      const res = await target.send('DELETE', keyPath(key.id), { key: await managingKey(model, target, key) });
      expectOk(res, 'KEY-REVOKE-001', `DELETE /account/api-keys/{key_id} of ${key.name}`);
      key.revoked = true;
      target.untrack(keyPath(key.id));
    });
  }
  toString(): string {
    return `revoke-key #${this.index}`;
  }
}

/** GET /account/api-keys: the sequence's live keys listed, its revoked ones not, no secret anywhere (others' keys are not the model's business). */
class ListKeys implements ExploreCommand {
  get record(): StepRecord {
    return { op: 'list-keys', args: {} };
  }
  check(model: ExploreModel): boolean {
    return keysOf(model).keys.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(apiKeys, this, target, () => compareSettled(target, () => this.compare(model, target)));
  }
  private async compare(model: ExploreModel, target: SequenceTarget): Promise<void> {
    const res = await target.send('GET', '/account/api-keys', { key: await managingKey(model, target) });
    expectOk(res, 'KEY-LIST-001', 'GET /account/api-keys');
    const listed = listOf<Record<string, unknown>>(res.body, 'api_keys') ?? [];
    const ids = new Set(listed.map((k) => k.id));
    for (const key of keysOf(model).keys) {
      const entry = listed.find((k) => k.id === key.id);
      if (entry && !key.revoked) checkExpiry(key, entry, `the entry of ${key.name} in GET /account/api-keys`);
      if (!key.revoked && !ids.has(key.id))
        throw new ModelViolation('KEY-LIST-001', 'GET /account/api-keys', `${key.name} listed`, 'not listed');
      if (key.revoked && ids.has(key.id))
        throw new ModelViolation(
          'KEY-DEL-001',
          'GET /account/api-keys',
          `the revoked ${key.name} not listed`,
          'listed',
        );
      // The raw body: the secret in any field of any entry is a leak.
      if (res.text.includes(key.secret))
        throw new ModelViolation(
          'KEY-LIST-002',
          'GET /account/api-keys',
          `the secret of ${key.name} nowhere in the listing`,
          'in the body',
        );
    }
  }
  toString(): string {
    return 'list-keys';
  }
}

export const apiKeys: ExploreFamily = {
  name: 'api-keys',
  summary: 'creates API keys, uses them, revokes them, lists them',
  rules: {
    'KEY-CRT-002': 'POST /account/api-keys with a name, both permissions and an expires_at is accepted',
    'KEY-CRT-003': 'a creation answers api_key with its id and the full secret in key',
    'AUTH-KEY-003': 'a key the sequence created and did not revoke is served',
    'KEY-REVOKE-001': 'DELETE /account/api-keys/{id} answers success, and the revoked key is refused from then on',
    'KEY-LIST-001': 'GET /account/api-keys lists every key the sequence created and did not revoke',
    'KEY-DEL-001': 'a revoked key is no longer listed',
    'KEY-LIST-002': 'the listing never shows the secret of a key',
    'KEY-FLD-002': 'the creation and every listing report the expires_at a key was created with',
  },
  rulesOf: {
    'create-key': ['KEY-CRT-002', 'KEY-CRT-003', 'KEY-FLD-002'],
    'use-key': ['AUTH-KEY-003', 'KEY-REVOKE-001'],
    'revoke-key': ['KEY-REVOKE-001'],
    'list-keys': ['KEY-LIST-001', 'KEY-DEL-001', 'KEY-LIST-002', 'KEY-FLD-002'],
  },
  arbitraries() {
    const index = fc.nat({ max: 2 });
    const create = fc.constantFrom('k1', 'k2', 'k3').map((l): ExploreCommand => new CreateKey(l));
    const use = index.map((i): ExploreCommand => new UseKey(i));
    const revoke = index.map((i): ExploreCommand => new RevokeKey(i));
    const list = fc.constant(new ListKeys());
    // fc.commands draws its arbitraries evenly: creations, revocations and uses weigh more, as a
    // revocation, then another creation, then a use or a listing is the interplay that matters.
    return [create, create, create, revoke, revoke, revoke, use, use, use, list, list];
  },
  /** The family's key, if a sequence created it. */
  async tearDown(target: SequenceTarget) {
    const key = familyKeys.get(target.exploration);
    familyKeys.delete(target.exploration);
    if (key) await (await key).revoke(target);
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'create-key') return new CreateKey(argString(a.label));
    if (s.op === 'use-key') return new UseKey(argNumber(a.index));
    if (s.op === 'revoke-key') return new RevokeKey(argNumber(a.index));
    if (s.op === 'list-keys') return new ListKeys();
    return undefined;
  },
};
