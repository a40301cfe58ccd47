import { describe, expect, it } from 'vitest';
import {
  consentSourceOf,
  mergeConsent,
  type ConsentPatch,
  type ConsentSource,
  type ConsentState,
} from './consent-merge.js';

const NONE: ConsentState = {
  marketingEmail: false,
  sms: false,
  suppressed: false,
  bounced: false,
  lockedEmail: false,
  lockedSms: false,
};
const OPTED_IN: ConsentState = { ...NONE, marketingEmail: true, sms: true };

/** given(records in log order).then(state): each record is a patch and its source. */
const given = (start: ConsentState, ...records: [ConsentPatch, ConsentSource][]) =>
  records.reduce((s, [p, source]) => mergeConsent(s, p, source), start);

describe('consentSourceOf: who recorded a customer event', () => {
  it('given the service dedup prefix and an unsubscribe or STOP, then a service opt-out', () => {
    expect(consentSourceOf({ dedupKey: 'holdfast:unsubscribe:u1', eventType: 'unsubscribe' })).toBe(
      'service_opt_out',
    );
    expect(consentSourceOf({ dedupKey: 'holdfast:sms-stop:SM1:c1', eventType: 'sms_stop' })).toBe(
      'service_opt_out',
    );
  });

  it('given the service recorded an SMS START, then a re-consent', () => {
    expect(consentSourceOf({ dedupKey: 'holdfast:sms-start:SM2:c1', eventType: 'sms_start' })).toBe(
      'reconsent',
    );
  });

  it('given a custom-api event (no service prefix), then only resubscribe/opt_in are a re-consent', () => {
    expect(consentSourceOf({ dedupKey: 'id:abc', eventType: 'resubscribe' })).toBe('reconsent');
    expect(consentSourceOf({ dedupKey: 'body:abc', eventType: 'Opt_In' })).toBe('reconsent');
    expect(consentSourceOf({ dedupKey: 'id:abc', eventType: 'custom' })).toBe('plain');
    // A merchant's own "unsubscribe" event is a plain write: it withdraws, but locks nothing.
    expect(consentSourceOf({ dedupKey: 'id:abc', eventType: 'unsubscribe' })).toBe('plain');
    expect(consentSourceOf({ dedupKey: 'id:abc', eventType: 'sms_start' })).toBe('plain');
  });
});

describe('mergeConsent: consent the service recorded wins', () => {
  it('given an unsubscribe the service recorded, when a stale upsert says suppressed false, then still suppressed', () => {
    const s = given(
      OPTED_IN,
      [{ suppressed: true }, 'service_opt_out'],
      [{ suppressed: false, marketingEmail: true }, 'plain'],
    );
    expect(s).toMatchObject({ suppressed: true, lockedEmail: true, marketingEmail: true });
  });

  it('given a STOP the service recorded, when an upsert says sms true, then still no SMS', () => {
    const s = given(OPTED_IN, [{ sms: false }, 'service_opt_out'], [{ sms: true }, 'plain']);
    expect(s).toMatchObject({ sms: false, lockedSms: true });
  });

  it('given a STOP, when the customer replies START (recorded by the service), then SMS consent is back', () => {
    const s = given(OPTED_IN, [{ sms: false }, 'service_opt_out'], [{ sms: true }, 'reconsent']);
    expect(s).toMatchObject({ sms: true, lockedSms: false });
  });

  it('given an unsubscribe, when the merchant sends an explicit resubscribe, then reversed; a later upsert merges as usual', () => {
    const s = given(
      OPTED_IN,
      [{ suppressed: true }, 'service_opt_out'],
      [{ suppressed: false }, 'reconsent'],
    );
    expect(s).toMatchObject({ suppressed: false, lockedEmail: false });
    expect(mergeConsent(s, { suppressed: true }, 'plain')).toMatchObject({
      suppressed: true,
      lockedEmail: false,
    });
    expect(
      mergeConsent(mergeConsent(s, { suppressed: true }, 'plain'), { suppressed: false }, 'plain'),
    ).toMatchObject({ suppressed: false });
  });

  it('given a lock on one channel, then the other channel merges as usual', () => {
    const s = given(
      OPTED_IN,
      [{ sms: false }, 'service_opt_out'],
      [{ suppressed: true }, 'plain'],
      [{ suppressed: false }, 'plain'],
    );
    expect(s).toMatchObject({ suppressed: false, lockedEmail: false, sms: false, lockedSms: true });
  });

  it('given a lock, then a plain write may still withdraw more (bounced, marketing_email false)', () => {
    const s = given(
      OPTED_IN,
      [{ suppressed: true }, 'service_opt_out'],
      [{ bounced: true, marketingEmail: false }, 'plain'],
    );
    expect(s).toEqual({
      ...OPTED_IN,
      suppressed: true,
      lockedEmail: true,
      bounced: true,
      marketingEmail: false,
    });
  });

  it('given no lock, then carried keys win and omitted keys are kept (the spec)', () => {
    expect(
      given(NONE, [{ marketingEmail: true, sms: true }, 'plain'], [{ sms: false }, 'plain'], [{}, 'plain']),
    ).toEqual({
      ...NONE,
      marketingEmail: true,
    });
  });

  it('given a re-consent that grants nothing (sms false), then the SMS lock stays', () => {
    const s = given(
      OPTED_IN,
      [{ sms: false }, 'service_opt_out'],
      [{ marketingEmail: true }, 'reconsent'],
      [{ sms: true }, 'plain'],
    );
    expect(s).toMatchObject({ sms: false, lockedSms: true });
  });
});
