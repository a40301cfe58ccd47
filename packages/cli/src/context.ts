import type { Kysely } from 'kysely';
import { createDb, createPool, migrateToLatest, type Database, type Pool } from '@holdfast/db';
import { ConfigError, EnvReader, readInfraConfig, type InfraConfig } from '@holdfast/platform';

/** What a command needs, created lazily so `--help` works without a database. */
export interface CliContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  config(): InfraConfig;
  db(): Promise<Kysely<Database>>;
  /** Prints a result: JSON with --json, else the human text. */
  out(json: unknown, human: string | (() => string)): void;
  readonly json: boolean;
  close(): Promise<void>;
}

/** A failure the user can act on: printed without a stack, exit code 2 (usage) or 1 (runtime). */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * Reads the stack's connection settings from the environment, falling back to what `npm run infra:up`
 * wrote (~/.cache/holdfast/run/env.json), so `npx holdfast ...` works right after `npm start`.
 */
export function createContext(
  env: Readonly<Record<string, string | undefined>>,
  json: boolean,
  fallbackEnv: Record<string, string> = {},
): CliContext {
  let pool: Pool | undefined;
  let db: Kysely<Database> | undefined;
  let config: InfraConfig | undefined;
  const merged = { ...fallbackEnv, ...env };
  return {
    env: merged,
    json,
    config() {
      if (!config) {
        try {
          const r = new EnvReader(merged);
          config = r.done(readInfraConfig(r));
        } catch (err) {
          if (err instanceof ConfigError)
            throw new CliError(`${err.message}. Start the stack with \`npm start\` (or set DATABASE_URL).`);
          throw err;
        }
      }
      return config;
    },
    async db() {
      if (!db) {
        pool = createPool(this.config().databaseUrl, 'holdfast-cli', 4);
        db = createDb(pool);
        await migrateToLatest(db as Kysely<unknown>);
      }
      return db;
    },
    out(jsonValue, human) {
      if (json) console.log(JSON.stringify(jsonValue, null, 2));
      else console.log(typeof human === 'function' ? human() : human);
    },
    async close() {
      await db?.destroy();
    },
  };
}
