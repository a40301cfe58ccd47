import { describe, expect, it } from 'vitest';
import { storeZoneOf, usZipZone, zoneOfCustomer } from './customer-zone.js';

describe('zoneOfCustomer', () => {
  it('given a US ZIP the dataset places, then the ZIP’s zone, whatever the store’s', () => {
    expect(zoneOfCustomer('10001', 'US', 'America/Los_Angeles')).toBe('America/New_York');
    expect(zoneOfCustomer('94110', null, 'America/New_York')).toBe('America/Los_Angeles');
    expect(zoneOfCustomer(' 85004-1234 ', 'usa', 'UTC')).toBe('America/Phoenix');
    expect(zoneOfCustomer('96813', 'United States', 'UTC')).toBe('Pacific/Honolulu');
    expect(zoneOfCustomer('00901', 'PR', 'UTC')).toBe('America/Puerto_Rico');
  });

  it('given a postcode of another country, then the store’s zone', () => {
    expect(zoneOfCustomer('10115', 'DE', 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(zoneOfCustomer('75001', 'FR', 'Europe/Paris')).toBe('Europe/Paris');
  });

  it('given no ZIP, a malformed one or one the dataset lacks, then the store’s zone', () => {
    expect(zoneOfCustomer(null, 'US', 'America/Chicago')).toBe('America/Chicago');
    expect(zoneOfCustomer('', undefined, 'America/Chicago')).toBe('America/Chicago');
    expect(zoneOfCustomer('1000', 'US', 'America/Chicago')).toBe('America/Chicago');
    expect(zoneOfCustomer('ABCDE', 'US', 'America/Chicago')).toBe('America/Chicago');
    expect(zoneOfCustomer('00000', 'US', 'America/Chicago')).toBe('America/Chicago');
  });

  it('given no store zone or one Intl does not know, then UTC stands in for it', () => {
    expect(zoneOfCustomer(null, null, null)).toBe('UTC');
    expect(zoneOfCustomer('SW1A 1AA', 'GB', 'CST')).toBe('UTC');
    expect(storeZoneOf('Europe/Oslo')).toBe('Europe/Oslo');
    expect(storeZoneOf(undefined)).toBe('UTC');
  });
});

describe('usZipZone', () => {
  it('given ZIPs across the zones the dataset distinguishes, then their IANA names', () => {
    expect(usZipZone('46201')).toBe('America/Indiana/Indianapolis');
    expect(usZipZone('99501')).toBe('America/Anchorage');
    expect(usZipZone('60601')).toBe('America/Chicago');
    expect(usZipZone('80202')).toBe('America/Denver');
    expect(usZipZone('nope')).toBeNull();
  });
});
