/**
 * A failed check's failure as data (report.json `checks[].failure`): what kind of expectation
 * failed, on which part of the answer, what was expected and what came, in normalised terms that
 * read the same on every operation, so that failures can be grouped by cause from these fields
 * alone (kind, subject, keyword, expected, actual and the check's level), never from prose.
 *
 * The assertions of src/harness/assert.ts throw it (src/harness/failure.ts, `CheckFailed`), the
 * check wrapper carries it to the reporter as data, and `cloudcheck explore` makes its model
 * violations one.
 */

/**
 * - `status`: the HTTP status. subject `status`; expected `201`, `200 or 201`, or a class `2xx` /
 *   `4xx` (what a MUST check may demand where the specification maps no code); actual `400`.
 * - `schema`: the body against a schema (the document's, or a resource's field table). subject the
 *   JSON Pointer of the value (`/meta`, `/vps/memory`; array indices as `*`), keyword the JSON
 *   Schema keyword (`required`, `type`, `enum`, `format`, ...); expected/actual per keyword:
 *   required `present`/`absent`, type `integer`/`string`, enum the allowed values/the value,
 *   format `date-time`/the value's shape (digits as 9).
 * - `envelope`: the error envelope `{"error": {"code", "message"}}`. subject a pointer into it:
 *   `/error` (expected `present`, actual `absent` or `invalid`), `/error/code` (expected the code,
 *   actual the code that came or `absent`), `/error/details`, `/error/resource`; schema findings
 *   of the envelope also carry their keyword.
 * - `header`: a response header. subject its name in lower case (`x-ratelimit-remaining`,
 *   `content-type`); expected `present` or a value (a media type without parameters); actual
 *   `absent` or the value.
 * - `body`: the body's content beyond its shape (the bytes of a download, a PDF's signature, a
 *   HEAD without a body, a JSON body at all). subject what was compared (`bytes`, `length`, `json`).
 * - `state`: what the API shows across requests: a deleted resource still there, a value not
 *   kept, a listing without what was created. subject the fact (`listed after delete`); explore's
 *   model violations are of this kind (subject: what was asked, as the model says it).
 * - `timing`: an asynchronous change that did not come before the deadline. subject what was
 *   awaited; expected `within <n> s`; actual `not after <n> s`.
 * - `invariant`: a run-wide rule over many responses (the rate-limit header invariants). subject
 *   the invariant's name.
 * - `assertion`: a hand-written check's plain `expect(...)` or an error it threw in words. subject
 *   the matcher (`toEqual`, `not.toContain`) or `thrown`; expected/actual Playwright's, as JSON.
 * - `prerequisite`: a request the check needed before it could judge anything failed; classified
 *   `environment` (the operation's own checks judge it). subject the operation needed.
 * - `error`: nothing was judged: cloudcheck's own error, the network's, a timeout. subject the
 *   error's name (`TypeError`, `NetworkError`, `timeout`).
 */
export type FailureKind =
  | 'status'
  | 'schema'
  | 'envelope'
  | 'header'
  | 'body'
  | 'state'
  | 'timing'
  | 'invariant'
  | 'assertion'
  | 'prerequisite'
  | 'error';

/** One finding of an assertion, normalised (see FailureKind for each kind's terms). */
export interface FailureFinding {
  subject: string;
  /** `schema` and `envelope`: the JSON Schema keyword that failed. */
  keyword?: string;
  /** What the check demanded; absent where nothing was demanded (an error). */
  expected?: string;
  /** What came, in the same terms. */
  actual?: string;
}

export interface CheckFailure extends FailureFinding {
  kind: FailureKind;
  /**
   * One sentence for people, naming the operation, the expectation and what came back
   * ("GET /vps: `meta` missing from the body"; "POST /projects answered 200, convention 201").
   * For reading only: no program should parse it.
   */
  headline: string;
  /**
   * The operation of the request judged, `METHOD /path` as the specification writes its row;
   * the check's own operation when the failure judged no single request; null when neither.
   */
  operation: string | null;
  /** The request judged as it was sent: method, path below the target's base, query (`GET /vps/vps_1?page=2`). */
  request?: string;
  /** Words of the check's author about what was judged ("no Authorization header", "upload docs/a.txt"). */
  context?: string;
  /** The assertion's further findings (the other schema errors, the other fields), normalised alike. */
  also?: FailureFinding[];
  /** What shows it to a reader: a body excerpt, the validator's sentences. Never part of a cause. */
  evidence?: string;
  /** Indices into the check's `exchanges` of the exchanges this failure judged. */
  exchanges?: number[];
}
