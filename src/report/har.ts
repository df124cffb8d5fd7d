/**
 * `exchanges.har`: the exchanges the report keeps (those of the failed checks; every check's with
 * `--har all`) in HTTP Archive 1.2 form, the format browser
 * developer tools, proxies (mitmproxy, Charles) and API clients open. Each entry's `comment` names
 * the check; headers and bodies are those of report.json, already redacted and cut where it cuts
 * them. Written by hand: the format is a small JSON shape (W3C HAR 1.2 draft), and no maintained
 * package builds HAR from recorded exchanges without bringing a browser or proxy along.
 */
import type { Exchange } from '../model/finding.ts';
import type { ConformanceReport } from '../model/report.ts';

interface HarHeader {
  name: string;
  value: string;
}

const headersOf = (headers: Record<string, string>): HarHeader[] =>
  Object.entries(headers).map(([name, value]) => ({ name, value }));

function mimeOf(headers: Record<string, string>): string {
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type');
  return entry?.[1] ?? 'application/octet-stream';
}

function queryOf(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function entryOf(exchange: Exchange, check: string): Record<string, unknown> {
  const request = exchange.request;
  const response = exchange.response;
  return {
    startedDateTime: exchange.started_at,
    time: exchange.duration_ms,
    comment: check,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      headers: headersOf(request.headers),
      queryString: queryOf(request.url),
      cookies: [],
      headersSize: -1,
      bodySize: request.body === undefined ? 0 : Buffer.byteLength(request.body),
      ...(request.body === undefined ? {} : { postData: { mimeType: mimeOf(request.headers), text: request.body } }),
    },
    response: {
      // A network failure has no response: HAR's convention is status 0, the error in the comment.
      status: response?.status ?? 0,
      statusText: exchange.error ?? '',
      httpVersion: 'HTTP/1.1',
      headers: headersOf(response?.headers ?? {}),
      cookies: [],
      content: {
        size: response?.body === undefined ? 0 : Buffer.byteLength(response.body),
        mimeType: mimeOf(response?.headers ?? {}),
        ...(response?.body === undefined ? {} : { text: response.body }),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: response?.body === undefined ? 0 : Buffer.byteLength(response.body),
    },
    cache: {},
    timings: { send: 0, wait: exchange.duration_ms, receive: 0 },
  };
}

export function writeHar(report: ConformanceReport): string {
  const entries = report.checks
    .filter((c) => c.exchanges?.length)
    .flatMap((c) => (c.exchanges ?? []).map((e) => entryOf(e, `${c.id} [${c.requirement}]`)))
    .sort((a, b) => String(a.startedDateTime).localeCompare(String(b.startedDateTime)));
  const log = {
    version: '1.2',
    creator: { name: 'cloudcheck', version: report.run.cloudcheck_version ?? 'unknown' },
    comment: `exchanges of the ${report.checks.some((c) => c.status !== 'failed' && c.exchanges?.length) ? 'checks' : 'failed checks'} of run ${report.run.id} against ${report.run.target}`,
    entries,
  };
  return `${JSON.stringify({ log }, null, 2)}\n`;
}
