/**
 * Text and attribute values escaped for HTML and SVG (both parse `&`, `<`, `>`, `"` and `'` the same
 * way in content and in double-quoted attributes). Every label of a chart passes through here: a
 * campaign type or a cohort label is data, and data never becomes markup.
 *
 * @example
 * escapeXml('a < b & "c"'); // 'a &lt; b &amp; &quot;c&quot;'
 */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * An id usable in `id` and `aria-labelledby` (letters, digits, `-`, `_`; starts with a letter).
 *
 * @example
 * safeId('churn risk#1'); // 'churn-risk-1'
 */
export function safeId(raw: string): string {
  const id = raw.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return /^[A-Za-z]/.test(id) ? id : `c-${id}`;
}

/** A coordinate with at most two decimals (SVG output stays short and byte-stable). */
export const px = (v: number): string => String(Math.round(v * 100) / 100);
