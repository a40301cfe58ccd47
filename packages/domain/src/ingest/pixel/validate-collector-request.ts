import { httpValidators } from '@holdfast/contracts/http';
import type { CollectorRequestInput } from '@holdfast/contracts';
import { parseTimestamp } from '../shared/parse-timestamp.js';
import { toValidationIssues } from '../shared/validation-issue.js';
import type { FormatPhraser, Validated, ValidationIssue } from '../shared/validation-issue.js';

// A well-formed timestamp without an offset gets pydantic's AwareDatetime wording.
const phraseFormat: FormatPhraser = (format, value) =>
  format === 'date-time' && typeof value === 'string' && parseTimestamp(value)?.naive === true
    ? { type: 'timezone_aware', msg: 'Input should have timezone info' }
    : undefined;

/**
 * Validates POST /pixel/collect against `collectorRequestSchema`: unknown fields (top level or on an
 * event) → 422 `extra_forbidden`; 0 or more than 50 events → `too_short` / `too_long`; event_id must be
 * a UUID, occurred_at a date-time WITH offset (`timezone_aware` when it has none), length limits per
 * the spec (`string_too_long`), counts integers >= 0. Leap seconds (`:60`), which the date-time format
 * admits but the time-window rule cannot place, are a 422 `datetime_parsing` too.
 *
 * @example
 * validateCollectorRequest({ key: 'pk_x', events: [], extra: 1 }).ok; // false
 */
export function validateCollectorRequest(body: unknown): Validated<{ request: CollectorRequestInput }> {
  const validate = httpValidators.collectorRequest;
  if (!validate(body))
    return { ok: false, detail: toValidationIssues(validate.errors, body, { phraseFormat }) };
  const request = body as CollectorRequestInput;
  const detail: ValidationIssue[] = [];
  request.events.forEach((event, i) => {
    if (parseTimestamp(event.occurred_at) === null)
      detail.push({
        type: 'datetime_parsing',
        loc: ['body', 'events', i, 'occurred_at'],
        msg: 'Input should be a valid datetime',
        input: event.occurred_at,
      });
  });
  return detail.length > 0 ? { ok: false, detail } : { ok: true, request };
}
