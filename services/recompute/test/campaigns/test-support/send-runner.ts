// Test support: one campaign step of one account as its own process, so a test can kill it at a chosen
// point. Env: DATABASE_URL, SCHEMA_REGISTRY_URL, HOLDFAST_SECRETS_KEYS, RUNNER_ACCOUNT_ID,
// RUNNER_PUBLIC_URL, RUNNER_NOW (ISO), and RUNNER_KILL_ON_MARK_SENT=n: the process SIGKILLs itself at
// the n-th send the provider accepted, before its record is written. Prints the step's result as JSON.
import { EventCodec } from '@holdfast/contracts';
import { createPool } from '@holdfast/postgres';
import { defaultSecretsKeyring } from '@holdfast/secrets';
import { createOutboundClient } from '@holdfast/platform';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { runCampaignStep } from '../../../src/campaigns/campaign-step.js';
import { createSendLedger } from '../../../src/campaigns/send-ledger.js';
import { CaptureAppender } from './capture-appender.js';
import { faultOnMarkSent, LOCAL_POLICY } from './real-providers.js';

const env = (k: string): string => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is required`);
  return v;
};

const pool = createPool(env('DATABASE_URL'), 'send-runner', 4);
const codec = await EventCodec.connect(env('SCHEMA_REGISTRY_URL'));
const killAt = Number(process.env.RUNNER_KILL_ON_MARK_SENT ?? 0);
const ledger = createSendLedger(pool, DEFAULT_READ_MODEL_SCHEMA);
const now = new Date(env('RUNNER_NOW'));
const result = await runCampaignStep(
  {
    topicPrefix: 'runner-',
    readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
    publicUrl: env('RUNNER_PUBLIC_URL'),
  },
  {
    pool,
    appender: new CaptureAppender(),
    codec,
    now: () => now,
    outbound: createOutboundClient(LOCAL_POLICY),
    outboundPolicy: LOCAL_POLICY,
    keyring: defaultSecretsKeyring(),
    sendLedger: killAt
      ? faultOnMarkSent(ledger, killAt, () => {
          process.kill(process.pid, 'SIGKILL');
          throw new Error('unreachable');
        })
      : ledger,
  },
  { accountId: env('RUNNER_ACCOUNT_ID'), taskId: 'runner' },
  { send: true },
);
process.stdout.write(`${JSON.stringify(result)}\n`);
await pool.end();
