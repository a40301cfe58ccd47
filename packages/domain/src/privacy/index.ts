export { NO_IDENTIFIER_ISSUE, validatePersonRequest } from './person-request.js';
export type { PersonIdentifiers, PersonRequest } from './person-request.js';
export {
  browserSuppressionCheck,
  SUPPRESSED_BROWSER,
  SUPPRESSED_IDENTITY,
  suppressionCheck,
} from './suppression.js';
export type { BrowserSuppressionCheck, SuppressedIndexes, SuppressionCheck } from './suppression.js';
export { scrubPersonalText, STORED_ERROR_MAX } from './scrub-personal-text.js';
