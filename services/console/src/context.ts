import type { Database, Pool } from '@holdfast/postgres';
import type { Logger } from '@holdfast/platform';
import type { ReadModelTables } from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import type { ConsoleConfig } from './config.js';
import type { ReadApiClient } from './read-api-client.js';
import type { SignInLimits } from './sign-in-policy.js';

/** What every route of the console uses, built once by `createConsole`. */
export interface ConsoleContext {
  readonly config: ConsoleConfig;
  readonly db: Kysely<Database>;
  readonly pool: Pool;
  /** The projector's read models (the console only reads them). */
  readonly readModels: Kysely<ReadModelTables>;
  readonly logger: Logger;
  readonly limits: SignInLimits;
  readonly now: () => Date;
  /** The console as a client of the /v1/ read API (null when HOLDFAST_READ_API_URL is unset). */
  readonly readApi: ReadApiClient | null;
}

/** The signed-in person of a request (res.locals.viewer). */
export interface SessionViewer {
  /** The cookie's secret (never logged; the CSRF token is derived from it). */
  readonly secret: string;
  readonly userId: string;
  readonly email: string;
  readonly isOperator: boolean;
  /** False between the password and the second factor. */
  readonly complete: boolean;
}
