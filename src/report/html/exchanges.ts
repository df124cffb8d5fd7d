/**
 * One recorded HTTP exchange as HTML: request line, headers, bodies (JSON pretty-printed, long
 * bodies folded), and the curl line that reproduces it with a copy button.
 */
import { esc } from './escape.ts';
import type { Exchange } from '../../model/finding.ts';

/** Bodies longer than this are folded into a <details> so one failure does not fill the screen. */
const FOLD_LINES = 24;
const FOLD_CHARS = 1500;

function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** Pretty JSON when the body is JSON (by content type or by shape), else the text as it came. */
export function prettyBody(body: string, contentType: string | undefined): { text: string; json: boolean } {
  const trimmed = body.trim();
  const looksJson = /json/i.test(contentType ?? '') || /^[[{]/.test(trimmed);
  if (looksJson) {
    try {
      return { text: JSON.stringify(JSON.parse(trimmed), null, 2), json: true };
    } catch {
      // Truncated or invalid JSON: shown as it came, which is itself worth seeing.
    }
  }
  return { text: body, json: false };
}

function bodyBlock(body: string | undefined, headers: Record<string, string> | undefined, label: string): string {
  if (body === undefined || body === '') return `<p class="none">no ${esc(label)} body</p>`;
  const { text, json } = prettyBody(body, headerValue(headers, 'content-type'));
  const pre = `<pre class="body${json ? ' json' : ''}"><code>${esc(text)}</code></pre>`;
  const lines = text.split('\n').length;
  if (lines <= FOLD_LINES && text.length <= FOLD_CHARS) return pre;
  return `<details class="fold"><summary>${esc(label)} body: ${lines} lines, ${text.length.toLocaleString('en-US')} characters</summary>${pre}</details>`;
}

function headersBlock(headers: Record<string, string> | undefined): string {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return '<p class="none">no headers recorded</p>';
  const rows = entries
    .map(([k, v]) => `<span class="hn">${esc(k)}:</span> <span class="hv">${esc(v)}</span>`)
    .join('\n');
  return `<pre class="headers"><code>${rows}</code></pre>`;
}

export function statusClassName(status: number | undefined): string {
  if (status === undefined) return 'sx';
  if (status === 429) return 's429';
  return `s${Math.floor(status / 100)}xx`;
}

/** A curl line with a copy button; the key is `$CLOUDCHECK_API_KEY` in it already. */
export function curlBlock(curl: string, label = 'curl'): string {
  return `<div class="cmd"><pre><code>${esc(curl)}</code></pre><button type="button" class="copy" data-copy aria-label="Copy the ${esc(label)} line">Copy</button></div>`;
}

export function renderExchange(ex: Exchange, index: number, total: number): string {
  const status = ex.response?.status;
  const outcome = ex.response
    ? `<span class="status ${statusClassName(status)}">${esc(status)}</span>`
    : `<span class="status sx">${esc(ex.error ? 'network error' : 'no response')}</span>`;
  const line = `<span class="method">${esc(ex.request.method)}</span> <span class="url">${esc(ex.request.url)}</span> <span class="arrow" aria-hidden="true">→</span> ${outcome} <span class="dur">${esc(Math.round(ex.duration_ms))} ms</span>`;
  const request = `<div class="half"><h5>Request</h5>${headersBlock(ex.request.headers)}${bodyBlock(ex.request.body, ex.request.headers, 'request')}</div>`;
  const response = ex.response
    ? `<div class="half"><h5>Response <span class="status ${statusClassName(status)}">${esc(status)}</span></h5>${headersBlock(ex.response.headers)}${bodyBlock(ex.response.body, ex.response.headers, 'response')}</div>`
    : `<div class="half"><h5>No response</h5><pre class="error"><code>${esc(ex.error ?? 'no response recorded')}</code></pre></div>`;
  // The last exchange is usually the one that failed the check: open it, fold the ones before.
  const open = index === total - 1 ? ' open' : '';
  // Its curl line is already under "Reproduce" above; the earlier ones carry their own.
  const curl = index === total - 1 ? '' : curlBlock(ex.curl);
  return `<details class="exchange"${open}><summary><span class="exn">${index + 1}/${total}</span> ${line}</summary><div class="exgrid">${request}${response}</div>${curl}</details>`;
}
