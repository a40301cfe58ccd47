import { ensureReadModelSchema, READ_SCHEMA_SETTING, readModelSchemaOf } from '@holdfast/read-models';
import type { CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

type Migrate = (db: unknown) => Promise<string[]>;

/**
 * The migrations the recompute (analytics, campaigns, its sync queue) and the dispatcher own, when installed: with
 * one role per service only the migration owner may create tables, so a deployment migrates
 * everything in one step before the services start (compose's `migrate` job).
 */
async function loadServiceMigrations(ctx: CliContext): Promise<[string, Migrate][]> {
  const found: [string, Migrate][] = [];
  const wanted = [
    ['@holdfast/recompute', ['migrateAnalytics', 'migrateCampaigns', 'migrateRecompute']],
    ['@holdfast/dispatcher', ['migrateDispatcher']],
  ] as const;
  for (const [specifier, names] of wanted) {
    try {
      const mod = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
      for (const name of names) if (typeof mod[name] === 'function') found.push([name, mod[name] as Migrate]);
    } catch (err) {
      const reason = (err as Error).message.split('\n')[0];
      ctx.log(`holdfast: ${specifier} is not available (${reason}); its migrations skipped`);
    }
  }
  return found;
}

/** `holdfast migrate`: control-plane migrations, the read-model schema, then the services' own. */
export const registerMigrate: RegisterCommand = (program, context) => {
  program
    .command('migrate')
    .description("bring the database schema up to date (control plane, read models, then the services' own)")
    .option(
      '--read-schema <name>',
      'read-model schema (default: $HOLDFAST_READ_SCHEMA, $READ_MODEL_SCHEMA or read_models)',
    )
    .action(async (o: { readSchema?: string }) => {
      const ctx = context();
      const applied = [...(await ctx.migrate())];
      // READ_MODEL_SCHEMA: an older name of the setting, honoured here after the current one.
      const legacy = ctx.env[READ_SCHEMA_SETTING] === undefined ? ctx.env.READ_MODEL_SCHEMA : undefined;
      const schema = readModelSchemaOf(ctx.env, o.readSchema ?? legacy);
      await ensureReadModelSchema(ctx.pool(), schema);
      const readModels = 'ensured';
      const db = await ctx.db();
      for (const [, migrate] of await loadServiceMigrations(ctx)) applied.push(...(await migrate(db)));
      ctx.out(
        { applied, read_models: readModels, read_schema: schema },
        (applied.length
          ? `Applied ${applied.length} migration(s):\n${applied.map((m) => `  ${m}`).join('\n')}`
          : 'Control plane: up to date') + `\nRead models (${schema}): ${readModels}`,
      );
    });
};
