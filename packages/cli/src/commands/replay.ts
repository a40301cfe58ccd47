import { InvalidArgumentError } from 'commander';
import type { CliContext } from '../context.js';
import { loadProjections, type RebuildProgress } from '../projections.js';
import type { RegisterCommand } from './index.js';
import { readModelSchemaOf } from '@holdfast/read-models';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive integer.`);
  return n;
}

function progressLine(p: RebuildProgress): string {
  const pct = p.target ? Math.floor((p.consumed / p.target) * 100) : 100;
  return `${p.phase}: ${p.consumed.toLocaleString('en-US')}/${p.target.toLocaleString('en-US')} (${pct}%), ${p.partitionsDone}/${p.partitions} partitions, ${(p.elapsedMs / 1000).toFixed(1)} s`;
}

function reporter(ctx: CliContext): (p: RebuildProgress) => void {
  // On a terminal the line redraws in place; in a pipe or log, one line per report.
  return (p) =>
    ctx.io.stderrIsTTY ? ctx.io.stderr(`\r\x1b[2K${progressLine(p)}`) : ctx.log(progressLine(p));
}

/**
 * `holdfast replay [--projection NAME]`: rebuilds read models from offset 0 into `<schema>_next` while
 * the live ones keep serving, then switches the rebuilt tables in with one transaction.
 */
export const registerReplay: RegisterCommand = (program, context) => {
  program
    .command('replay')
    .description('rebuild read models from offset 0 beside the live ones, then switch them in with one step')
    .option('--projection <name...>', 'only these projections (default: all)')
    .option('--no-switch', 'build <schema>_next and stop there (to inspect it)')
    .option('--chunk <n>', 'records per transaction', positiveInt, 5000)
    .option('--read-schema <name>', 'live read-model schema (default: $HOLDFAST_READ_SCHEMA or read_models)')
    .action(async (o: { projection?: string[]; switch: boolean; chunk: number; readSchema?: string }) => {
      const ctx = context();
      const cfg = ctx.config();
      const readSchema = readModelSchemaOf(ctx.env, o.readSchema);
      const { connectProjectorDeps, rebuildReadModels } = await loadProjections();
      const connected = await connectProjectorDeps(cfg, ctx.pool(), ctx.logger(), 'holdfast-cli-replay');
      try {
        const result = await rebuildReadModels(
          {
            topicPrefix: cfg.topicPrefix,
            readSchema,
            projections: o.projection,
            chunkSize: o.chunk,
            noSwitch: !o.switch,
            onProgress: reporter(ctx),
            retention: cfg.retention,
          },
          connected.deps,
        );
        if (ctx.io.stderrIsTTY) ctx.io.stderr('\n');
        ctx.out(
          {
            projections: result.projections,
            read_schema: readSchema,
            switched: Boolean(result.oldSchema),
            next_schema: result.oldSchema ? null : result.nextSchema,
            old_schema: result.oldSchema ?? null,
            elapsed_ms: result.elapsedMs,
          },
          result.oldSchema
            ? `Rebuilt ${result.projections.join(', ')} in ${(result.elapsedMs / 1000).toFixed(1)} s and switched it into ${readSchema}.\n` +
                `The replaced tables are in ${result.oldSchema}; drop it when satisfied: drop schema "${result.oldSchema}" cascade;`
            : `Rebuilt ${result.projections.join(', ')} into ${result.nextSchema} (not switched in).`,
        );
      } finally {
        await connected.close();
      }
    });
};
