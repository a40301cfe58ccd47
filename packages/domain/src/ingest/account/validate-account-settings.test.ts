import { describe, expect, it } from 'vitest';
import { isIanaTimezone, validateAccountSettings } from './validate-account-settings.js';

describe('validateAccountSettings', () => {
  it.each([
    ['America/Chicago'],
    ['Europe/Berlin'],
    ['Asia/Kolkata'],
    ['Asia/Calcutta'],
    ['Europe/Kyiv'],
    ['America/Argentina/Buenos_Aires'],
    ['America/Port-au-Prince'],
    ['UTC'],
    ['Etc/UTC'],
    ['Etc/GMT+5'],
  ])('given %s, when validated, then it is accepted as sent', (tz) => {
    expect(validateAccountSettings({ store_timezone: tz })).toEqual({
      ok: true,
      settings: { store_timezone: tz },
    });
  });

  it.each([
    ['CST'],
    ['PST'],
    ['EST'],
    ['EST5EDT'],
    ['PST8PDT'],
    ['GMT'],
    ['Zulu'],
    ['US/Eastern'],
    ['america/chicago'],
    ['Mars/Olympus_Mons'],
    ['America/Nowhere'],
  ])('given %s, when validated, then it is a 422 value_error', (tz) => {
    expect(validateAccountSettings({ store_timezone: tz })).toEqual({
      ok: false,
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'store_timezone'],
          msg: `Value error, '${tz}' is not an IANA timezone name (for example America/Chicago)`,
          input: tz,
        },
      ],
    });
  });

  it.each([
    [{}, { type: 'missing', loc: ['body', 'store_timezone'], msg: 'Field required' }],
    [
      { store_timezone: '' },
      {
        type: 'string_too_short',
        loc: ['body', 'store_timezone'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ],
    [
      { store_timezone: 5 },
      {
        type: 'string_type',
        loc: ['body', 'store_timezone'],
        msg: 'Input should be a valid string',
        input: 5,
      },
    ],
    [
      { store_timezone: null },
      {
        type: 'string_type',
        loc: ['body', 'store_timezone'],
        msg: 'Input should be a valid string',
        input: null,
      },
    ],
  ])('given body %j, when validated, then the 422 entry is exact', (body, entry) => {
    expect(validateAccountSettings(body)).toEqual({ ok: false, detail: [entry] });
  });

  it('given the runtime zone list, when checked, then every listed Area/Location name is accepted', () => {
    const rejected = Intl.supportedValuesOf('timeZone').filter(
      (tz) => tz.includes('/') && !tz.startsWith('US/') && !isIanaTimezone(tz),
    );
    expect(rejected).toEqual([]);
  });
});
