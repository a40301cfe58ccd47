import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { customerEvent, customerRow, customerUpserted, metadata, zeroParty } from '@holdfast/testing/events';
import { MergeFixture } from '../../test-support/merge-fixture.js';
import { wireCommerce } from '../../../src/projections/commerce/commerce.projection.js';
import { customerUuid } from '../../../src/projections/commerce/customer-id.js';

let t: TestEnv;
let f: MergeFixture;

beforeAll(async () => {
  t = await createTestEnv('webhookevents');
  f = await MergeFixture.create(t, 'we', wireCommerce());
});
afterAll(() => t.close());

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();

describe('inbound customer events (POST /webhooks/custom-api)', () => {
  it('records how each event found its customer: created, provider_id, email, phone', async () => {
    const a = f.account();
    const first = metadata(a, at(1));
    await f.given(
      [
        'CustomerEventReceived',
        customerEvent(first, 'k1', { external_id: 'e-1', email: 'a@x.co', phone: '+15125550100' }),
      ],
      [
        'CustomerEventReceived',
        customerEvent(metadata(a, at(2)), 'k2', { external_id: 'e-1', event_type: 'login' }),
      ],
      ['CustomerEventReceived', customerEvent(metadata(a, at(3)), 'k3', { email: 'a@x.co' })],
      ['CustomerEventReceived', customerEvent(metadata(a, at(4)), 'k4', { phone: '+15125550100' })],
    );
    const rows = await f.whole.rows(
      `select dedup_key, customer_id, link_method, is_new, event_type from rm.customer_events where account_id = $1 order by dedup_key`,
      [a],
    );
    const id = customerUuid(a, first.event_id);
    expect(rows).toEqual([
      { dedup_key: 'k1', customer_id: id, link_method: 'created', is_new: true, event_type: 'custom' },
      { dedup_key: 'k2', customer_id: id, link_method: 'provider_id', is_new: false, event_type: 'login' },
      { dedup_key: 'k3', customer_id: id, link_method: 'email', is_new: false, event_type: 'custom' },
      { dedup_key: 'k4', customer_id: id, link_method: 'phone', is_new: false, event_type: 'custom' },
    ]);
  });

  it('merges the customer like a customer row and ignores a duplicate dedup key entirely', async () => {
    const a = f.account();
    const m = metadata(a, at(1));
    await f.given(
      [
        'CustomerUpserted',
        customerUpserted(
          metadata(a, at(0)),
          customerRow({
            external_id: 'e-1',
            consent: { marketing_email: true, sms: true, suppressed: null, bounced: null },
          }),
        ),
      ],
      [
        'CustomerEventReceived',
        customerEvent(m, 'stop', {
          external_id: 'e-1',
          consent: { marketing_email: null, sms: false, suppressed: null, bounced: null },
        }),
      ],
      [
        'CustomerEventReceived',
        customerEvent(metadata(a, at(2)), 'stop', {
          external_id: 'e-1',
          name: 'Changed',
          consent: { marketing_email: false, sms: true, suppressed: true, bounced: null },
        }),
      ],
    );
    const [c] = await f.whole.rows(`select * from rm.customers where account_id = $1`, [a]);
    expect(c).toMatchObject({
      name: null,
      consent_marketing_email: true,
      consent_sms: false,
      consent_suppressed: false,
    });
    const events = await f.whole.rows(
      `select event_id, link_method from rm.customer_events where account_id = $1`,
      [a],
    );
    expect(events).toEqual([{ event_id: m.event_id, link_method: 'provider_id' }]);
  });
});

describe('zero-party submissions', () => {
  it('links a submission to the customer it names, stores its answers, and ignores duplicates', async () => {
    const a = f.account();
    const m = metadata(a, at(1));
    await f.given(
      [
        'CustomerUpserted',
        customerUpserted(metadata(a, at(0)), customerRow({ external_id: 'e-1', email: 'q@x.co' })),
      ],
      [
        'ZeroPartySubmitted',
        zeroParty(m, 'zp:1', {
          email: 'q@x.co',
          interests: ['tea', 'a "b"'],
          attributes_json: '{"size":"M"}',
          quiz_version: '3',
          completed_at: '2025-01-01T00:00:30.000Z',
        }),
      ],
      [
        'ZeroPartySubmitted',
        zeroParty(metadata(a, at(2)), 'zp:1', { email: 'q@x.co', interests: ['coffee'] }),
      ],
    );
    const [c] = await f.whole.rows<{ customer_id: string }>(
      `select customer_id from rm.customers where account_id = $1`,
      [a],
    );
    const rows = await f.whole.rows(`select * from rm.zero_party_submissions where account_id = $1`, [a]);
    expect(rows).toMatchObject([
      {
        event_id: m.event_id,
        customer_id: c!.customer_id,
        interests: ['tea', 'a "b"'],
        attributes: { size: 'M' },
        quiz_version: '3',
        completed_at: new Date('2025-01-01T00:00:30.000Z'),
      },
    ]);
  });

  it('creates the customer when none matches, labelled with the submission source', async () => {
    const a = f.account();
    const m = metadata(a, at(1));
    await f.given([
      'ZeroPartySubmitted',
      zeroParty(m, 'zp:2', { external_customer_id: 'e-5', email: 'new@x.co', source_label: 'quiz' }),
    ]);
    expect(
      await f.whole.rows(
        `select customer_id, external_id, email, source_label from rm.customers where account_id = $1`,
        [a],
      ),
    ).toEqual([
      {
        customer_id: customerUuid(a, m.event_id),
        external_id: 'e-5',
        email: 'new@x.co',
        source_label: 'quiz',
      },
    ]);
  });
});
