import { InvalidArgumentError, Option } from 'commander';
import { CliError, type CliContext } from '../context.js';
import { loadProjections, type DeadLetterRow } from '../projections.js';
import { iso, table, when } from '../format.js';
import type { RegisterCommand } from './index.js';
import { readModelSchemaOf } from '@holdfast/read-models';

const readSchemaOf = (ctx: CliContext, o: { readSchema?: string }) =>
  readModelSchemaOf(ctx.env, o.readSchema);

const readSchemaOption = () =>
  new Option('--read-schema <name>', 'read-model schema (default: $HOLDFAST_READ_SCHEMA or read_models)');

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive integer.`);
  return n;
}

const asJson = (d: DeadLetterRow) => ({
  id: d.id,
  projection: d.projection,
  topic: d.topic,
  partition: d.partition,
  offset: d.offset,
  account_id: d.accountId,
  request_id: d.requestId,
  reason: d.reason,
  record_timestamp: iso(d.recordTimestamp),
  status: d.status,
  redriven_at: iso(d.redrivenAt),
  value_bytes: d.valueBytes,
});

/**
 * `holdfast dlq list|replay`: records a projection could never apply (undecodable bytes, an unknown
 * schema, a row a database constraint rejects), and re-driving them once the cause is fixed.
 */
export const registerDlq: RegisterCommand = (program, context) => {
  const dlq = program.command('dlq').description('dead letters: records the projector could not apply');

  dlq
    .command('list')
    .description('list dead letters, oldest first (default: those still dead)')
    .option('--projection <name>', 'only this projection (commerce, account-settings, ...)')
    .addOption(
      new Option('--status <status>', 'dead, redriven or all')
        .choices(['dead', 'redriven', 'all'])
        .default('dead'),
    )
    .option('--limit <n>', 'at most this many', positiveInt, 100)
    .addOption(readSchemaOption())
    .action(
      async (o: {
        projection?: string;
        status: 'dead' | 'redriven' | 'all';
        limit: number;
        readSchema?: string;
      }) => {
        const ctx = context();
        const { listDeadLetters } = await loadProjections();
        const rows = await listDeadLetters(ctx.pool(), readSchemaOf(ctx, o), o);
        ctx.out(rows.map(asJson), () =>
          rows.length
            ? table(
                ['ID', 'ACCOUNT', 'STATUS', 'RECORDED', 'REASON'],
                rows.map((d) => [
                  d.id,
                  d.accountId ?? '-',
                  d.status,
                  when(d.recordTimestamp),
                  d.reason.slice(0, 120),
                ]),
              )
            : 'No dead letters.',
        );
      },
    );

  dlq
    .command('replay')
    .description(
      're-drive dead letters: append each original record again to its topic, then mark it redriven',
    )
    .argument('[ids...]', 'dead-letter ids as listed (projection:partition:offset)')
    .option('--all', 'every dead letter (of --projection, when given)')
    .option('--projection <name>', 'only this projection')
    .addOption(readSchemaOption())
    .action(async (ids: string[], o: { all?: boolean; projection?: string; readSchema?: string }) => {
      if (!ids.length && !o.all) throw new CliError('name the dead letters to re-drive, or pass --all', 2);
      if (ids.length && o.all) throw new CliError('pass either ids or --all, not both', 2);
      const ctx = context();
      const { connectProjectorDeps, redriveDeadLetters } = await loadProjections();
      const connected = await connectProjectorDeps(
        ctx.config(),
        ctx.pool(),
        ctx.logger(),
        'holdfast-cli-dlq',
      );
      try {
        const { redriven } = await redriveDeadLetters(ctx.pool(), await connected.appender(), {
          schema: readSchemaOf(ctx, o),
          topicPrefix: ctx.config().topicPrefix,
          projection: o.projection,
          ids: ids.length ? ids : undefined,
        });
        const missing = ids.filter((id) => !redriven.includes(id));
        ctx.out({ redriven, not_found: missing }, () =>
          [
            `Re-drove ${redriven.length} dead letter(s)${redriven.length ? `: ${redriven.join(', ')}` : ''}.`,
            ...(missing.length ? [`Not dead (unknown or already re-driven): ${missing.join(', ')}`] : []),
          ].join('\n'),
        );
        if (missing.length) process.exitCode = 3;
      } finally {
        await connected.close();
      }
    });
};
