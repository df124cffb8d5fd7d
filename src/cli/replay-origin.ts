/**
 * Where an explore finding came from, so that its replay goes there. A replay file records the
 * target of its exploration; replayed elsewhere (a file of a `--target` run without `--target`,
 * which meant a fresh, fault-free embedded server that "passed" it) it proved nothing. So the
 * hint printed with a finding names the target, and a replay against another target than the
 * file's is refused unless asked for (`--replay-any-target`).
 */
import { isObject } from '../harness/body-shape.ts';

export interface ReplayOrigin {
  /** The base URL the exploration ran against. */
  target: string;
  /** It was the embedded reference server (started for that run, gone since: a fresh one stands for it). */
  embedded: boolean;
}

/** The origin a replay file records, or null for a file written before files recorded it. */
export function originOf(data: unknown): ReplayOrigin | null {
  if (!isObject(data) || typeof data.target !== 'string') return null;
  return { target: data.target, embedded: data.embedded === true };
}

/** A base URL compared as a URL: scheme and host case, default port and trailing slash aside. */
function sameBaseUrl(a: string, b: string): boolean {
  const norm = (url: string): string => {
    try {
      const u = new URL(url);
      return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
    } catch {
      return url.replace(/\/+$/, '');
    }
  };
  return norm(a) === norm(b);
}

/** Why replaying a file of `origin` against `target` (undefined: the embedded server) is refused, or null. */
export function replayRefusal(origin: ReplayOrigin | null, target: string | undefined): string | null {
  if (!origin) return null;
  if (origin.embedded && target !== undefined)
    return `the replay file came from the embedded reference server, not from ${target}: replay it without --target, or pass --replay-any-target to replay it there`;
  if (!origin.embedded && target === undefined)
    return `the replay file came from ${origin.target}: pass --target ${origin.target} (and its API key), or --replay-any-target to replay it against the embedded reference server`;
  if (!origin.embedded && target !== undefined && !sameBaseUrl(origin.target, target))
    return `the replay file came from ${origin.target}, not from ${target}: pass --target ${origin.target}, or --replay-any-target to replay it against ${target}`;
  return null;
}

/** The command that replays a finding against the target it came from. */
export function replayHint(file: string, origin: ReplayOrigin): string {
  return origin.embedded
    ? `cloudcheck explore --replay ${file} (against a fresh embedded reference server, as the finding's was)`
    : `cloudcheck explore --target ${origin.target} --replay ${file} (with the API key of that target)`;
}
