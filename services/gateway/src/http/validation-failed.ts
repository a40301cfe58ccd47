import type { ValidationIssue } from '@holdfast/domain';
import { HttpError } from '@holdfast/platform';

/**
 * A request failed validation: 422 with `issues` as the `detail` list. It lives here, not in
 * `@holdfast/platform` with the other HTTP errors, because its entries are the domain's
 * `ValidationIssue` and platform may not depend on the domain (the domain depends on it through
 * contracts); the gateway is its only user.
 */
export class ValidationFailedError extends HttpError {
  override readonly name = 'ValidationFailedError';
  constructor(readonly issues: readonly ValidationIssue[]) {
    super(422, 'validation failed');
  }
}
