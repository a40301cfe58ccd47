import { describe, expect, it } from 'vitest';
import { SeekGuard } from './seek-guard.js';

describe('SeekGuard', () => {
  it('applies a batch that starts right after the checkpoint', () => {
    expect(new SeekGuard().check(0, 9, 10)).toBeUndefined();
  });

  it('treats a gap after its own write as transaction markers', () => {
    const g = new SeekGuard();
    g.committed(0, 9);
    expect(g.check(0, 9, 11)).toBeUndefined();
  });

  it('rewinds once when the checkpoint moved without it (a schema switch), then accepts what follows', () => {
    const g = new SeekGuard();
    g.committed(0, 500);
    expect(g.check(0, 120, 501)).toBe(121);
    expect(g.check(0, 120, 122)).toBeUndefined();
  });

  it('rewinds again when a stale prefetched batch arrives after the rewind', () => {
    const g = new SeekGuard();
    expect(g.check(0, 120, 501)).toBe(121);
    expect(g.check(0, 120, 900)).toBe(121);
    expect(g.check(0, 120, 501)).toBeUndefined();
  });
});
