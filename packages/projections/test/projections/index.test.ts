import { describe, expect, it } from 'vitest';
import { selectWiredProjections, wireProjections } from '../../src/projections/index.js';

const commerceOf = (options = {}) => wireProjections(options).find((w) => w.projection.name === 'commerce')!;

describe('wireProjections', () => {
  it('gives every call a commerce projection and lookahead of its own', () => {
    const [first, second] = [commerceOf(), commerceOf()];
    expect(first.projection).not.toBe(second.projection);
    expect(first.lookahead).toBeDefined();
    expect(first.lookahead).not.toBe(second.lookahead);
  });

  it('wires the commerce projection without a lookahead when its memory budget is 0', () => {
    expect(commerceOf({ memoryBudget: { customers: 0, orders: 0 } }).lookahead).toBeUndefined();
  });

  it('selects by name, and names the known ones for an unknown name', () => {
    expect(selectWiredProjections(['commerce']).map((w) => w.projection.name)).toEqual(['commerce']);
    expect(() => selectWiredProjections(['nope'])).toThrow(/unknown projection "nope" \(known: commerce, /);
  });
});
