import { describe, expect, it } from 'vitest';
import { nameUuid } from './name-uuid.js';

// Ids already stored (customers, deliveries, nightly tasks, CampaignSent events) were made by the
// helpers this one replaced: these vectors are theirs, so a change to the bytes fails here first.
describe('nameUuid', () => {
  it('given a name alone, then the id the dispatcher gave that delivery', () => {
    expect(nameUuid('holdfast.delivery\u0000sub-1\u0000trk-1')).toBe('334f2f83-624e-5a73-a981-d3da070faf25');
  });

  it('given a namespace and a name, then the id the projector gave that customer', () => {
    const ns = Buffer.from('6f1d3c2a8b7e4f0c9a5d2e1b3c4d5e6f', 'hex');
    expect(nameUuid('2b1c0000-0000-4000-8000-000000000001\u0000evt-1', ns)).toBe(
      'ecff93d3-bce0-568f-b5ef-ff33233a624e',
    );
  });

  it('given any name, then a version 5, RFC 4122 variant uuid', () => {
    expect(nameUuid('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
