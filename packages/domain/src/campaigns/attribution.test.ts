import { describe, expect, it } from 'vitest';
import {
  attributeOrder,
  isForeignCampaign,
  sendsOfOurs,
  trackingIdInSource,
  type AttributionOrder,
  type AttributionSend,
} from './attribution.js';

const T = Date.parse('2025-03-10T12:00:00.000Z');
const at = (days: number) => new Date(T + days * 86_400_000).toISOString();
const send = (trackingId: string, customerId: string, days: number | null): AttributionSend => ({
  trackingId,
  customerId,
  campaignType: 'win_back',
  channel: 'email',
  sentAt: days === null ? null : at(days),
});
const order = (over: Partial<AttributionOrder> = {}): AttributionOrder => ({
  orderId: 'o-1',
  customerId: 'alice',
  orderDate: at(0),
  source: null,
  cancelled: false,
  netAmount: 50,
  ...over,
});

describe('trackingIdInSource', () => {
  it.each([
    [null, null],
    ['organic', null],
    ['https://shop.example.com/?utm_source=holdfast&utm_content=hft_01', 'hft_01'],
    ['email UTM_CONTENT=HFT_Ab-9 and more', 'hft_ab-9'],
    ['utm_content=a&utm_content=b', 'a'],
    ['utm_content=', null],
  ])('given source %j, then the tracking id is %j', (source, id) => {
    expect(trackingIdInSource(source)).toBe(id);
  });
});

describe('isForeignCampaign', () => {
  it.each([
    [null, false],
    ['email', false],
    ['https://shop.example.com/?utm_source=holdfast&utm_content=x', false],
    ['?UTM_SOURCE=HoldFast', false],
    ['?utm_source=klaviyo&utm_content=spring', true],
    // utm parameters without a utm_source: not ours
    ['?utm_medium=email', true],
    // the value ends at &, # or whitespace
    ['utm_source=holdfast#x', false],
    ['utm_source=holdfastx', true],
    ['utm_source=holdfast\tutm_medium=email', false],
  ])('given source %j, then foreign is %j', (source, foreign) => {
    expect(isForeignCampaign(source)).toBe(foreign);
  });
});

describe('sendsOfOurs', () => {
  it('given ledger rows and projected sends, then sent/possibly sent rows and projections the ledger does not know', () => {
    const s = (id: string) => send(id, 'alice', -1);
    const got = sendsOfOurs(
      [
        { ...s('sent'), status: 'sent' },
        { ...s('maybe'), status: 'possibly_sent' },
        { ...s('failed'), status: 'failed' },
        { ...s('planned'), status: 'planned' },
      ],
      [s('failed'), s('projected-only'), s('sent')],
    );
    expect(got.map((x) => x.trackingId)).toEqual(['sent', 'maybe', 'projected-only']);
  });
});

describe('attributeOrder', () => {
  it('given a forwarded landing URL of our send, when another customer buys, then exact', () => {
    const got = attributeOrder(order({ customerId: 'bob', source: 'x utm_content=HFT_1' }), [
      send('hft_1', 'alice', -20),
    ]);
    expect(got).toMatchObject({ method: 'exact', trackingId: 'hft_1', netRevenue: 50 });
  });

  it('given sends inside the window, then last touch to the latest, ties to the greatest tracking id', () => {
    const sends = [
      send('a', 'alice', -3),
      send('c', 'alice', -1),
      send('b', 'alice', -1),
      send('z', 'bob', 0),
    ];
    expect(attributeOrder(order(), sends)).toMatchObject({ method: 'last_touch', trackingId: 'c' });
  });

  it('given a send exactly 7 days before, then it counts; 1 ms earlier, it does not', () => {
    expect(attributeOrder(order(), [send('edge', 'alice', -7)])?.trackingId).toBe('edge');
    const older = { ...send('old', 'alice', null), sentAt: new Date(T - 7 * 86_400_000 - 1).toISOString() };
    expect(attributeOrder(order(), [older])).toBeNull();
  });

  it('given a send after the order, then no last touch', () => {
    expect(attributeOrder(order(), [send('later', 'alice', 0.01)])).toBeNull();
  });

  it('given the merchant’s own campaign in the source, then last touch does not claim it', () => {
    const o = order({ source: '?utm_source=klaviyo&utm_content=spring' });
    expect(attributeOrder(o, [send('a', 'alice', -1)])).toBeNull();
  });

  it('given a cancelled order, then never attributed, not even exactly', () => {
    const o = order({ cancelled: true, source: 'utm_content=a' });
    expect(attributeOrder(o, [send('a', 'alice', -1)])).toBeNull();
  });

  it('given an order without a customer or a ledger row never sent, then only exact can match', () => {
    expect(attributeOrder(order({ customerId: null }), [send('a', 'alice', -1)])).toBeNull();
    expect(attributeOrder(order(), [send('a', 'alice', null)])).toBeNull();
    expect(attributeOrder(order({ source: 'utm_content=a' }), [send('a', 'alice', null)])?.method).toBe(
      'exact',
    );
  });

  it('given a shorter window, then an older send falls out', () => {
    expect(attributeOrder(order(), [send('a', 'alice', -3)], 2)).toBeNull();
  });
});
