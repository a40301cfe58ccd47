import type { Kysely } from 'kysely';
import { ensureReadModelSchema, READ_SCHEMA_SETTING, readModelSchemaOf } from '@holdfast/read-models';
import {
  MigrationSetMissingError,
  requireMigrationSets,
  SERVICE_MIGRATIONS,
  type ServiceMigrations,
} from '@holdfast/migrations';
import { CliError } from '../context.js';
import type { RegisterCommand } from './index.js';

/**
 * `holdfast migrate` over the given service-owned sets: control-plane migrations, the read-model
 * schema, then the services' own (with one role per service only the migration owner may create
 * tables, so a deployment migrates everything in one step before the services start: compose's
 * `migrate` job). A required set missing fails the command before it migrates anything.
 */
export function migrateCommand(sets: readonly ServiceMigrations[]): RegisterCommand {
  return (program, context) => {
    program
      .command('migrate')
      .description(
        "bring the database schema up to date (control plane, read models, then the services' own)",
      )
      .option(
        '--read-schema <name>',
        'read-model schema (default: $HOLDFAST_READ_SCHEMA, $READ_MODEL_SCHEMA or read_models)',
      )
      .action(async (o: { readSchema?: string }) => {
        try {
          requireMigrationSets(sets);
        } catch (err) {
          if (err instanceof MigrationSetMissingError) throw new CliError(err.message);
          throw err;
        }
        const ctx = context();
        const applied = [...(await ctx.migrate())];
        // READ_MODEL_SCHEMA: an older name of the setting, honoured here after the current one.
        const legacy = ctx.env[READ_SCHEMA_SETTING] === undefined ? ctx.env.READ_MODEL_SCHEMA : undefined;
        const schema = readModelSchemaOf(ctx.env, o.readSchema ?? legacy);
        await ensureReadModelSchema(ctx.pool(), schema);
        const readModels = 'ensured';
        const db = await ctx.db();
        for (const set of sets) applied.push(...(await set.migrate(db as unknown as Kysely<unknown>)));
        ctx.out(
          { applied, read_models: readModels, read_schema: schema },
          (applied.length
            ? `Applied ${applied.length} migration(s):\n${applied.map((m) => `  ${m}`).join('\n')}`
            : 'Control plane: up to date') + `\nRead models (${schema}): ${readModels}`,
        );
      });
  };
}

/** `holdfast migrate` over every set of @holdfast/migrations. */
export const registerMigrate: RegisterCommand = migrateCommand(SERVICE_MIGRATIONS);
