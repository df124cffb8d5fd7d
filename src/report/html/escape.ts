/**
 * Escaping for the HTML page. Everything that comes from a report (bodies, headers, messages,
 * even check ids) is untrusted text: a response body may well contain `<script>`.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for element content and for attribute values (always quoted with `"`). */
export function esc(value: unknown): string {
  if (value === null || value === undefined) return '';
  return (
    String(value)
      // eslint-disable-next-line no-control-regex -- control characters other than tab/newline are dropped, they only garble the page
      .replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '')
      .replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)
  );
}

/**
 * A value serialised into an inline `<script type="application/json">`: `<`, `>` and `&` as
 * unicode escapes so no `</script>` or `<!--` can end the element early; U+2028/2029 likewise.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Vendored or own script text made safe to sit inside `<script>…</script>`. */
export function inlineScriptText(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** Own or vendored CSS made safe to sit inside `<style>…</style>`. */
export function inlineStyleText(css: string): string {
  return css.replace(/<\/(style)/gi, '<\\/$1');
}

/** A fragment id from any check or requirement id (ids are ours, but still not trusted blindly). */
export function anchorId(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}
