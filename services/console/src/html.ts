// Server-rendered HTML: a tagged template that escapes every interpolated value unless it is already
// markup (another `html` result). Nothing reaches a page unescaped by accident.

/** A fragment of markup that is safe to embed as is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML text or attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = Html | string | number | boolean | null | undefined | Date | readonly Part[];

function render(v: Part): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return (v as readonly Part[]).map(render).join('');
  if (v instanceof Date) return escapeHtml(v.toISOString());
  return escapeHtml(String(v));
}

/** `html\`<p>${text}</p>\``: interpolations escaped, nested `html` kept. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** A time as people read it (UTC, to the minute), or a dash. */
export function when(d: Date | string | null | undefined): string {
  if (!d) return '—';
  const t = typeof d === 'string' ? new Date(d) : d;
  return `${t.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
