import { writeFile } from 'node:fs/promises';
import { describeAccount } from '@holdfast/control-plane';
import { validatePersonRequest } from '@holdfast/domain';
import { EventCodec } from '@holdfast/contracts';
import { createKafka } from '@holdfast/kafka';
import { loadPrivacyKeyring, PgSubjectKeyStore, SubjectKeyCache } from '@holdfast/privacy';
import { migrateLog } from './privacy-migrate-log.js';
import {
  erasureView,
  exportView,
  findErasure,
  findExport,
  listErasures,
  openExportDocument,
  queueErasure,
  queueExport,
  type ErasureRecord,
} from '@holdfast/privacy-requests';
import { Option } from 'commander';
import { CliError, type CliContext } from '../context.js';
import { accountOption, positiveInt, table, uuid, when } from '../format.js';
import type { RegisterCommand } from './index.js';

interface PersonOptions {
  account: string;
  externalId?: string;
  email?: string;
  phone?: string;
}

/**
 * The person of `--external-id/--email/--phone` (and, for an erasure, the browser of
 * `--anonymous-id`), validated and normalised like the API's body.
 */
function personRequest(
  o: PersonOptions & { suppress?: boolean; anonymousId?: string },
  kind: 'erasure' | 'export',
) {
  const body: Record<string, unknown> = {};
  if (o.externalId !== undefined) body.external_id = o.externalId;
  if (o.email !== undefined) body.email = o.email;
  if (o.phone !== undefined) body.phone = o.phone;
  if (kind === 'erasure' && o.anonymousId !== undefined) body.anonymous_id = o.anonymousId;
  if (kind === 'erasure' && o.suppress) body.suppress = true;
  const v = validatePersonRequest(body, kind);
  if (!v.ok)
    throw new CliError(
      v.detail.map((d) => `${d.loc.slice(1).join('.') || 'identifiers'}: ${d.msg}`).join('; ') +
        (kind === 'erasure'
          ? ' (name the person with --external-id, --email or --phone, or a browser with --anonymous-id)'
          : ' (name the person with --external-id, --email or --phone)'),
      2,
    );
  return v.request;
}

const keyStore = (ctx: CliContext) => new PgSubjectKeyStore(ctx.pool(), loadPrivacyKeyring(ctx.env));

/** Polls `read` every 500 ms until it returns a final status or `timeoutMs` passes. */
async function waitFor<T extends { status: string }>(
  read: () => Promise<T | null>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (!v) throw new CliError('the request disappeared while waiting (expired or deleted)', 3);
    if (v.status === 'done' || v.status === 'failed') return v;
    if (Date.now() > deadline)
      throw new CliError(
        `still ${v.status} after ${Math.round(timeoutMs / 1000)} s: is the projector running (it runs erasures and exports)?`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
}

const personOptions = () => [
  new Option('--external-id <id>', "the person's customer id in the client system"),
  new Option('--email <email>', 'their email'),
  new Option('--phone <phone>', 'their phone (E.164, or US national)'),
];

function erasureLine(e: ErasureRecord): string {
  const c = e.counters;
  const counts =
    e.status === 'done' && c
      ? ` customers=${c.customers} orders=${c.orders} keys_destroyed=${c.keys_destroyed} rows_blanked=${c.rows_blanked}`
      : '';
  return `Erasure ${e.id}: ${e.status}${e.suppress ? ' (suppress)' : ''}${counts}${e.reason ? ` reason: ${e.reason}` : ''}`;
}

/**
 * `holdfast erase`, `holdfast erasures list|show`, `holdfast export-person`: the same requests as
 * POST /v1/erasures and /v1/exports, queued through the same function (`queueErasure`,
 * `queueExport`); the projector process runs them.
 */
export const registerPrivacy: RegisterCommand = (program, context) => {
  const erase = program
    .command('erase')
    .description(
      'erase a person or a browser: destroy the keys of all their records and blank the read models (the projector runs it)',
    )
    .addOption(accountOption());
  for (const o of personOptions()) erase.addOption(o);
  erase
    .option(
      '--anonymous-id <id>',
      "a browser: the pixel's anonymous id, verbatim (its pixel events lose raw_props, search and page_title)",
    )
    .option(
      '--suppress',
      'also drop later ingest naming one of these identifiers (suppressed_identity) or pixel events of the browser (suppressed_browser)',
    )
    .option('--wait', 'wait until the erasure is done or failed')
    .addOption(new Option('--timeout <seconds>', 'how long --wait waits').default(300).argParser(positiveInt))
    .action(
      async (
        o: PersonOptions & { anonymousId?: string; suppress?: boolean; wait?: boolean; timeout: number },
      ) => {
        const ctx = context();
        const request = personRequest(o, 'erasure');
        const db = await ctx.db();
        await describeAccount(db, o.account);
        const { erasure, created } = await queueErasure(ctx.pool(), keyStore(ctx), {
          accountId: o.account,
          request,
          requestedBy: 'cli',
          now: new Date(),
        });
        const final = o.wait
          ? await waitFor(() => findErasure(ctx.pool(), o.account, erasure.id), o.timeout * 1000)
          : erasure;
        ctx.out(
          { ...erasureView(final), created },
          () => `${erasureLine(final)}${created ? '' : ' (already requested)'}`,
        );
        if (final.status === 'failed')
          throw new CliError(`erasure ${final.id} failed: ${final.reason ?? ''}`);
      },
    );

  const erasures = program.command('erasures').description('erasure requests of an account');
  erasures
    .command('list')
    .description("an account's erasures, latest first")
    .addOption(accountOption())
    .addOption(new Option('--limit <n>', 'how many').default(50).argParser(positiveInt))
    .action(async (o: { account: string; limit: number }) => {
      const ctx = context();
      await ctx.db();
      const list = await listErasures(ctx.pool(), o.account, o.limit);
      ctx.out(list.map(erasureView), () =>
        table(
          ['ERASURE', 'STATUS', 'SUPPRESS', 'REQUESTED', 'FINISHED', 'BY'],
          list.map((e) => [
            e.id,
            e.status,
            e.suppress ? 'yes' : 'no',
            when(e.requestedAt),
            when(e.finishedAt),
            e.requestedBy,
          ]),
        ),
      );
    });
  erasures
    .command('show')
    .description('one erasure, with its counters')
    .argument('<erasure-id>', 'the erasure id', uuid)
    .addOption(accountOption())
    .action(async (id: string, o: { account: string }) => {
      const ctx = context();
      await ctx.db();
      const e = await findErasure(ctx.pool(), o.account, id);
      if (!e) throw new CliError(`no erasure ${id} in account ${o.account}`, 3);
      ctx.out(erasureView(e), () => erasureLine(e));
    });

  const exp = program
    .command('export-person')
    .description(
      'export everything held about a person (access request) as JSON; waits for the projector to build it',
    )
    .addOption(accountOption());
  for (const o of personOptions()) exp.addOption(o);
  exp
    .option('--out <file>', 'write the document here (default: stdout)')
    .addOption(new Option('--timeout <seconds>', 'how long to wait').default(300).argParser(positiveInt))
    .action(async (o: PersonOptions & { out?: string; timeout: number }) => {
      const ctx = context();
      const request = personRequest(o, 'export');
      const db = await ctx.db();
      await describeAccount(db, o.account);
      const keyring = loadPrivacyKeyring(ctx.env);
      const { export: x } = await queueExport(ctx.pool(), new PgSubjectKeyStore(ctx.pool(), keyring), {
        accountId: o.account,
        request,
        requestedBy: 'cli',
        now: new Date(),
      });
      const final = await waitFor(
        () => findExport(ctx.pool(), o.account, x.id, new Date()),
        o.timeout * 1000,
      );
      if (final.status === 'failed') throw new CliError(`export ${final.id} failed: ${final.reason ?? ''}`);
      const doc = await openExportDocument(ctx.pool(), keyring, o.account, final.id, new Date());
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      if (o.out) {
        await writeFile(o.out, text, { mode: 0o600 });
        ctx.log(
          `Wrote export ${final.id} to ${o.out} (${exportView(final).expires_at} it is deleted from Holdfast)`,
        );
      } else ctx.io.stdout(text);
    });

  const privacy = program
    .command('privacy')
    .description('the keys personal data is sealed under (HOLDFAST_PRIVACY_KEYS), and the log');
  privacy
    .command('rewrap')
    .description(
      'KEK rotation: wrap every index and subject key again under the first key of HOLDFAST_PRIVACY_KEYS (keep the old ones in the ring until it is done); the keys themselves, so every record, stay the same',
    )
    .addOption(new Option('--batch <n>', 'keys per transaction').default(500).argParser(positiveInt))
    .action(async (o: { batch: number }) => {
      const ctx = context();
      await ctx.db();
      const keyring = loadPrivacyKeyring(ctx.env);
      const store = new PgSubjectKeyStore(ctx.pool(), keyring);
      const rewrapped = await store.rewrap(o.batch);
      const byKek = Object.fromEntries(await store.keysByKek());
      const current = keyring.currentKeyId;
      const left = Object.entries(byKek)
        .filter(([id]) => id !== current)
        .reduce((n, [, c]) => n + c, 0);
      ctx.out(
        { current_kek: current, rewrapped, keys_by_kek: byKek, keys_under_other_keks: left },
        () =>
          `Rewrapped ${rewrapped} keys under KEK "${current}"; ${left} under other KEKs` +
          (left ? ' (re-run: another process was rewrapping them)' : ': the older KEKs can leave the ring'),
      );
    });

  privacy
    .command('migrate-log')
    .description(
      'copy every topic of HOLDFAST_TOPIC_PREFIX to --to-prefix, sealing the personal fields of commerce records written in clear (erased subjects: dropped); then switch the services to the new prefix and rebuild (docs/privacy.md)',
    )
    .requiredOption('--to-prefix <prefix>', 'the topic prefix of the copy (e.g. "v2-")')
    .addOption(
      new Option('--timeout <seconds>', 'give up when the copy has not reached the end by then')
        .default(3600)
        .argParser(positiveInt),
    )
    .action(async (o: { toPrefix: string; timeout: number }) => {
      const ctx = context();
      const cfg = ctx.config();
      await ctx.db();
      const codec = await EventCodec.connect(cfg.schemaRegistryUrl, { auth: cfg.registryAuth });
      const kafka = createKafka(cfg.kafkaBrokers, 'holdfast-cli', ctx.logger(), cfg.kafkaSecurity);
      const r = await migrateLog({
        kafka,
        pool: ctx.pool(),
        codec,
        keys: new SubjectKeyCache(keyStore(ctx)),
        fromPrefix: cfg.topicPrefix,
        toPrefix: o.toPrefix,
        partitions: cfg.partitions,
        logger: ctx.logger(),
        timeoutMs: o.timeout * 1000,
      });
      ctx.out(
        { from_prefix: cfg.topicPrefix, to_prefix: o.toPrefix, ...r },
        () =>
          `Copied ${r.copied} records of ${r.topics} topics to prefix "${o.toPrefix}", ${r.sealed} commerce records sealed. ` +
          `Next: stop the gateway, run this again to copy the rest, set HOLDFAST_TOPIC_PREFIX=${o.toPrefix} everywhere, holdfast rebuild.`,
      );
    });
};
