import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerRow } from '@holdfast/contracts';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import {
  customerEvent,
  customerRow,
  customerUpserted,
  metadata,
  orderRow,
  orderUpserted,
} from '@holdfast/testing/events';
import { MergeFixture } from '../../test-support/merge-fixture.js';
import type { Given } from '../../test-support/projection-harness.js';
import { wireCommerce } from '../../../src/projections/commerce/commerce.projection.js';
import { customerUuid } from '../../../src/projections/commerce/customer-id.js';

let t: TestEnv;
let f: MergeFixture;

beforeAll(async () => {
  t = await createTestEnv('customersmerge');
  f = await MergeFixture.create(t, 'cm', wireCommerce());
});
afterAll(() => t.close());

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();
const customer = (account: string, minute: number, over: Partial<CustomerRow>): Given => [
  'CustomerUpserted',
  customerUpserted(metadata(account, at(minute)), customerRow(over)),
];

async function customersOf(account: string) {
  return f.whole.rows<Record<string, unknown>>(
    `select * from rm.customers where account_id = $1 order by created_at, customer_id`,
    [account],
  );
}

describe('customer identity resolution', () => {
  it('creates a customer with a deterministic id when nothing matches', async () => {
    const a = f.account();
    const m = metadata(a, at(1));
    await f.given([
      'CustomerUpserted',
      customerUpserted(m, customerRow({ external_id: 'e-1', email: 'a@x.co' })),
    ]);
    expect(await customersOf(a)).toMatchObject([
      {
        customer_id: customerUuid(a, m.event_id),
        external_id: 'e-1',
        email: 'a@x.co',
        created_at: new Date(at(1)),
      },
    ]);
  });

  it('matches by external_id first', async () => {
    const a = f.account();
    await f.given(
      customer(a, 1, { external_id: 'e-1', email: 'old@x.co' }),
      customer(a, 2, { email: 'new@x.co', phone: '+15125550100' }),
      customer(a, 3, { external_id: 'e-1', email: 'new@x.co' }),
    );
    // The third row carries e-1 and new@x.co: e-1 wins over the email of the second customer.
    const rows = await customersOf(a);
    expect(rows.map((r) => [r.external_id, r.email])).toEqual([
      ['e-1', 'new@x.co'],
      [null, 'new@x.co'],
    ]);
  });

  it('then by email, linking the external id to a customer that had none', async () => {
    const a = f.account();
    await f.given(
      customer(a, 1, { email: 'a@x.co', name: 'Ann' }),
      customer(a, 2, { external_id: 'e-7', email: 'a@x.co' }),
    );
    expect(await customersOf(a)).toMatchObject([
      { external_id: 'e-7', email: 'a@x.co', name: 'Ann', updated_at: new Date(at(2)) },
    ]);
  });

  it('then by phone', async () => {
    const a = f.account();
    await f.given(
      customer(a, 1, { phone: '+15125550101' }),
      customer(a, 2, { email: 'b@x.co', phone: '+15125550101' }),
    );
    expect(await customersOf(a)).toMatchObject([{ email: 'b@x.co', phone: '+15125550101' }]);
  });

  it('keeps two external ids apart even when they share an email; an email-only row goes to the oldest', async () => {
    const a = f.account();
    await f.given(
      customer(a, 1, { external_id: 'e-1', email: 'home@x.co' }),
      customer(a, 2, { external_id: 'e-2', email: 'home@x.co' }),
      customer(a, 3, { email: 'home@x.co', name: 'Household' }),
    );
    expect((await customersOf(a)).map((r) => [r.external_id, r.name])).toEqual([
      ['e-1', 'Household'],
      ['e-2', null],
    ]);
  });

  it('upserts the identity each order carries and links the order to it', async () => {
    const a = f.account();
    const second = metadata(a, at(2));
    await f.given(
      customer(a, 0, { email: 'buyer@x.co', source_label: 'shopify-import' }),
      [
        'OrderUpserted',
        orderUpserted(
          metadata(a, at(1)),
          orderRow({ order_id: 'o-1', customer_id: 'c-9', email: 'buyer@x.co', customer_name: 'Bea' }),
        ),
      ],
      [
        'OrderUpserted',
        orderUpserted(second, orderRow({ order_id: 'o-2', customer_id: 'c-10', phone: '+15125550199' })),
      ],
    );
    const rows = await customersOf(a);
    expect(rows).toMatchObject([
      { external_id: 'c-9', email: 'buyer@x.co', name: 'Bea', source_label: 'shopify-import' },
      {
        external_id: 'c-10',
        phone: '+15125550199',
        source_label: 'custom-api',
        customer_id: customerUuid(a, second.event_id),
      },
    ]);
    const orders = await f.whole.rows(
      `select order_id, customer_id from rm.orders where account_id = $1 order by order_id`,
      [a],
    );
    expect(orders).toEqual([
      { order_id: 'o-1', customer_id: rows[0]!.customer_id },
      { order_id: 'o-2', customer_id: rows[1]!.customer_id },
    ]);
  });
});

describe('consent the service recorded wins (mergeConsent)', () => {
  const event = (
    account: string,
    minute: number,
    dedupKey: string,
    over: Parameters<typeof customerEvent>[2],
  ): Given => ['CustomerEventReceived', customerEvent(metadata(account, at(minute)), dedupKey, over)];
  const consent = (c: { marketing_email?: boolean; sms?: boolean; suppressed?: boolean }) => ({
    marketing_email: c.marketing_email ?? null,
    sms: c.sms ?? null,
    suppressed: c.suppressed ?? null,
    bounced: null,
  });
  const optedIn = (a: string, minute: number) =>
    customer(a, minute, {
      external_id: 'e-1',
      email: 'ann@x.co',
      phone: '+15125550100',
      consent: consent({ marketing_email: true, sms: true, suppressed: false }),
    });

  it('a one-click unsubscribe, then a stale upsert with suppressed false: still suppressed', async () => {
    const a = f.account();
    await f.given(
      optedIn(a, 1),
      event(a, 2, 'holdfast:unsubscribe:u1', {
        external_id: 'e-1',
        event_type: 'unsubscribe',
        consent: consent({ suppressed: true }),
      }),
      customer(a, 3, { external_id: 'e-1', consent: consent({ marketing_email: true, suppressed: false }) }),
    );
    expect(await customersOf(a)).toMatchObject([
      { consent_suppressed: true, consent_locked_email: true, consent_sms: true, consent_locked_sms: false },
    ]);
  });

  it('an SMS STOP, then an upsert with sms true: still no SMS; a START reply reverses it', async () => {
    const a = f.account();
    const stop = event(a, 2, 'holdfast:sms-stop:SM1:c1', {
      phone: '+15125550100',
      event_type: 'sms_stop',
      consent: consent({ sms: false }),
    });
    await f.given(
      optedIn(a, 1),
      stop,
      customer(a, 3, { external_id: 'e-1', consent: consent({ sms: true }) }),
    );
    expect(await customersOf(a)).toMatchObject([{ consent_sms: false, consent_locked_sms: true }]);
    await f.given(
      event(a, 4, 'holdfast:sms-start:SM2:c1', {
        phone: '+15125550100',
        event_type: 'sms_start',
        consent: consent({ sms: true }),
      }),
    );
    expect(await customersOf(a)).toMatchObject([{ consent_sms: true, consent_locked_sms: false }]);
  });

  it("the merchant's explicit resubscribe event reverses an unsubscribe; its plain custom event does not", async () => {
    const a = f.account();
    await f.given(
      optedIn(a, 1),
      event(a, 2, 'holdfast:unsubscribe:u2', {
        external_id: 'e-1',
        event_type: 'unsubscribe',
        consent: consent({ suppressed: true }),
      }),
      event(a, 3, 'id:custom-1', {
        external_id: 'e-1',
        event_type: 'custom',
        consent: consent({ suppressed: false }),
      }),
    );
    expect(await customersOf(a)).toMatchObject([{ consent_suppressed: true, consent_locked_email: true }]);
    await f.given(
      event(a, 4, 'id:resub-1', {
        external_id: 'e-1',
        event_type: 'resubscribe',
        consent: consent({ suppressed: false }),
      }),
    );
    expect(await customersOf(a)).toMatchObject([{ consent_suppressed: false, consent_locked_email: false }]);
  });
});

describe('customer merge rules', () => {
  it('keeps consent keys that a row omits; new customers start without consent', async () => {
    const a = f.account();
    await f.given(
      customer(a, 1, {
        external_id: 'e-1',
        consent: { marketing_email: true, sms: true, suppressed: null, bounced: null },
      }),
      customer(a, 2, {
        external_id: 'e-1',
        consent: { marketing_email: null, sms: false, suppressed: null, bounced: null },
      }),
      customer(a, 3, { external_id: 'e-1', consent: null }),
    );
    expect(await customersOf(a)).toMatchObject([
      {
        consent_marketing_email: true,
        consent_sms: false,
        consent_suppressed: false,
        consent_bounced: false,
      },
    ]);
  });

  it('writes the address only when a row carries one, and replaces it whole', async () => {
    const a = f.account();
    const addr = (street: string | null, city: string | null, state: string | null) => ({
      street,
      city,
      state,
      zip: null,
      country: 'US',
    });
    await f.given(
      customer(a, 1, { external_id: 'e-1', address: addr('1 Main St', 'Austin', 'TX') }),
      customer(a, 2, { external_id: 'e-1', address: null }),
    );
    expect(await customersOf(a)).toMatchObject([
      {
        address_street: '1 Main St',
        address_city: 'Austin',
        address_state: 'TX',
        address_zip: null,
        address_country: 'US',
      },
    ]);
    await f.given(
      customer(a, 3, {
        external_id: 'e-1',
        address: { street: null, city: 'Toronto', state: null, zip: 'M5V', country: 'CA' },
      }),
    );
    expect(await customersOf(a)).toMatchObject([
      {
        address_street: null,
        address_city: 'Toronto',
        address_state: null,
        address_zip: 'M5V',
        address_country: 'CA',
      },
    ]);
  });

  it('keeps subscription_started_at write-once, earliest wins; the status follows the last row that sets it', async () => {
    const a = f.account();
    await f.given(
      customer(a, 1, {
        external_id: 'e-1',
        subscription_status: 'active',
        subscription_started_at: '2024-05-01T00:00:00.000Z',
      }),
      customer(a, 2, {
        external_id: 'e-1',
        subscription_status: 'paused',
        subscription_started_at: '2024-03-01T00:00:00.000Z',
      }),
      customer(a, 3, { external_id: 'e-1', subscription_started_at: '2024-04-01T00:00:00.000123Z' }),
    );
    expect(await customersOf(a)).toMatchObject([
      { subscription_status: 'paused', subscription_started_at: new Date('2024-03-01T00:00:00.000Z') },
    ]);
  });

  it('defaults source_label to custom-api and stores an explicit one', async () => {
    const a = f.account();
    await f.given(
      customer(a, 1, { external_id: 'e-1' }),
      customer(a, 1, { external_id: 'e-2', source_label: 'klaviyo' }),
    );
    expect((await customersOf(a)).map((r) => r.source_label).sort()).toEqual(['custom-api', 'klaviyo']);
  });

  it('takes created_at and updated_at from the records, never the clock', async () => {
    const a = f.account();
    await f.given(
      customer(a, 5, { external_id: 'e-1', name: 'A' }),
      customer(a, 9, { external_id: 'e-1', name: 'B', phone: '+14155550100' }),
      // A change of personal values alone leaves updated_at (mergeCustomer: a replay after an
      // erasure could not see it).
      customer(a, 12, { external_id: 'e-1', name: 'C', phone: '+14155550100' }),
    );
    expect(await customersOf(a)).toMatchObject([
      { name: 'C', created_at: new Date(at(5)), updated_at: new Date(at(9)) },
    ]);
  });
});
