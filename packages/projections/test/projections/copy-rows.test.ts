import { describe, expect, it } from 'vitest';
import { CopyBuffer, copyLine } from '../../src/projections/copy-rows.js';

describe('CopyBuffer', () => {
  it('holds exactly the UTF-8 bytes of the lines appended, across growth', () => {
    const b = new CopyBuffer();
    const lines: string[] = [];
    // Multi-byte text (é, 漢, an emoji) and enough lines to outgrow the first 1 MiB.
    for (let i = 0; i < 40_000; i++) lines.push(copyLine([`o-${i}`, 'Thé 漢字 🍵', i, null, ['a\tb']]));
    for (const l of lines) b.append(l);
    expect(b.bytes().equals(Buffer.from(lines.join(''), 'utf8'))).toBe(true);
    expect(b.bytes().length).toBeGreaterThan(1 << 20);
  });

  it('is empty until something is appended', () => {
    expect(new CopyBuffer().bytes().length).toBe(0);
  });
});
