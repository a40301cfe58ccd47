/**
 * Vitest global setup for the integration and end-to-end tiers: real Kafka, the real registry and real
 * PostgreSQL. Environment variables win (CI or a developer's own stack); otherwise a container runtime,
 * when present, could serve (testcontainers); on machines without one the project's own infra/ scripts
 * start the local stack. Every run gets its own id: databases and topics are named after it.
 */
import { randomBytes } from 'node:crypto';
import { dropRunResources } from './cleanup.js';
import { createMigratedTemplate } from './test-env.js';

interface StackEnv {
  DATABASE_URL: string;
  KAFKA_BROKERS: string;
  SCHEMA_REGISTRY_URL: string;
}

async function hasContainerRuntime(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function localStack(): Promise<StackEnv> {
  // infra/ is plain JavaScript so that it runs before anything is built.
  const stack = await import('../../../infra/lib/stack.mjs');
  const { loadSettings } = await import('../../../infra/lib/settings.mjs');
  return stack.up(loadSettings(), (m) => console.error(`[infra] ${m}`));
}

export default async function setup(): Promise<() => Promise<void>> {
  const given = process.env.DATABASE_URL && process.env.KAFKA_BROKERS && process.env.SCHEMA_REGISTRY_URL;
  let env: StackEnv;
  if (given) {
    env = {
      DATABASE_URL: process.env.DATABASE_URL!,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS!,
      SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
    };
  } else {
    if (await hasContainerRuntime()) {
      console.error('[infra] a container runtime answers, but the local stack is used: it is what CI runs');
    }
    env = await localStack();
  }
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  // Every test file's database is a copy of this one, migrated once here (named like the others of
  // the run, so the teardown drops it with them).
  const template = `hf_${runId}_template`;
  await createMigratedTemplate(env.DATABASE_URL, template);
  Object.assign(process.env, env, {
    HOLDFAST_TEST_RUN: runId,
    HOLDFAST_TEST_TEMPLATE_DB: template,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  });
  // Test receivers and providers are local http servers: open exactly those to the guarded outbound
  // client (tests of the guard build their own strict policies), and seal secrets with a key of this run.
  process.env.HOLDFAST_OUTBOUND_ALLOW_HTTP ??= 'true';
  process.env.HOLDFAST_OUTBOUND_ALLOW ??= '127.0.0.1:*,[::1]:*';
  process.env.HOLDFAST_SECRETS_KEYS ??= `test-${runId}:${randomBytes(32).toString('base64')}`;
  // The gateway's own keys (unsubscribe links, SMS inbound tokens): never the master key.
  process.env.HOLDFAST_UNSUBSCRIBE_KEYS ??= `unsub-${runId}:${randomBytes(32).toString('base64')}`;
  process.env.HOLDFAST_INBOUND_KEYS ??= `inbound-${runId}:${randomBytes(32).toString('base64')}`;
  // The key-encryption keys of personal data in the log (gateway, projector, CLI): one per run.
  process.env.HOLDFAST_PRIVACY_KEYS ??= `privacy-${runId}:${randomBytes(32).toString('base64')}`;
  return async () => {
    if (process.env.HOLDFAST_KEEP_TEST_DATA) return;
    await dropRunResources(env, runId);
  };
}
