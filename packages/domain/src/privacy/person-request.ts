import { httpValidators } from '@holdfast/contracts/http';
import type { PersonRequestInput } from '@holdfast/contracts';
import { normalizePhone } from '../ingest/shared/normalize-phone.js';
import { blankToNull, normalizeEmail } from '../ingest/shared/text.js';
import {
  toValidationIssues,
  type Validated,
  type ValidationIssue,
} from '../ingest/shared/validation-issue.js';

/** A person as an erasure or export names them: normalised exactly as ingest stores identifiers. */
export interface PersonIdentifiers {
  readonly externalId: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  /**
   * Erasures only (not a spec field): a browser by the pixel's anonymous id, verbatim; absent when
   * not named. A browser never tied to a person can be erased only this way.
   */
  readonly anonymousId?: string;
}

/** A validated POST /v1/erasures or /v1/exports body. */
export interface PersonRequest {
  readonly identifiers: PersonIdentifiers;
  /** Erasures only: also suppress the identifiers (false for exports). */
  readonly suppress: boolean;
}

/** The 422 entry of a body that names no identifier. */
export const NO_IDENTIFIER_ISSUE: ValidationIssue = Object.freeze({
  type: 'value_error',
  loc: ['body'],
  msg: 'Value error, at least one of external_id, email or phone is required',
});

// One @, something on both sides, no whitespace: what can name a stored email (ingest itself checks
// no syntax, but an address without these can never be one a person would ask about).
const EMAIL_SHAPE = /^[^@\s]+@[^@\s]+$/;

/**
 * Validates the body of POST /v1/erasures (`kind: 'erasure'`, `suppress` allowed) or POST /v1/exports
 * and normalises the identifiers with ingest's own rules (external id verbatim unless blank, email
 * trimmed and lower-cased, phone to E.164 with default region US), so they match what records carry.
 * 422 entries: the schema's (unknown field `extra_forbidden`, wrong types), `value_error` at
 * `['body', 'email']` for an email without the `local@domain` shape, at `['body', 'phone']` for a
 * phone that is not a valid number, at `['body']` when no identifier is left. The values themselves
 * are never echoed (they are personal data).
 *
 * @example
 * validatePersonRequest({ email: ' Ann@Example.com ', suppress: true }, 'erasure');
 * // { ok: true, request: { identifiers: { externalId: null, email: 'ann@example.com', phone: null }, suppress: true } }
 */
export function validatePersonRequest(
  body: unknown,
  kind: 'erasure' | 'export',
): Validated<{ request: PersonRequest }> {
  const validate = kind === 'erasure' ? httpValidators.erasureRequest : httpValidators.exportRequest;
  if (!validate(body)) return { ok: false, detail: toValidationIssues(validate.errors, body) };
  const input = body as PersonRequestInput;
  const detail: ValidationIssue[] = [];
  const email = normalizeEmail(input.email);
  if (email !== null && !EMAIL_SHAPE.test(email))
    detail.push({
      type: 'value_error',
      loc: ['body', 'email'],
      msg: 'Value error, not a valid email address',
    });
  const rawPhone = blankToNull(input.phone);
  const phone = rawPhone === null ? null : normalizePhone(rawPhone);
  if (rawPhone !== null && phone === null)
    detail.push({
      type: 'value_error',
      loc: ['body', 'phone'],
      msg: 'Value error, not a valid phone number',
    });
  const externalId = blankToNull(input.external_id);
  // Verbatim, like the collector stores it (the schema admits it on erasures only).
  const anonymousId = blankToNull(input.anonymous_id);
  if (detail.length) return { ok: false, detail };
  if (externalId === null && email === null && phone === null && anonymousId === null)
    return { ok: false, detail: [NO_IDENTIFIER_ISSUE] };
  return {
    ok: true,
    request: {
      identifiers: { externalId, email, phone, ...(anonymousId !== null ? { anonymousId } : {}) },
      suppress: input.suppress === true,
    },
  };
}
