// The whole local stack: up (idempotent), down (nothing left behind), status.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kafkaNodes, kafkaReplication, startKafka } from './kafka.mjs';
import { ensurePostgres, stopEmbeddedPostgres } from './postgres.mjs';
import { portOpen, readPid, stopDaemon } from './proc.mjs';
import { registryUrl, startRegistry } from './registry.mjs';

// Two `up` calls at once (two test runs) must not start two brokers: a lock directory serialises them.
async function withLock(settings, fn) {
  const lock = join(settings.runDir, 'up.lock');
  mkdirSync(settings.runDir, { recursive: true });
  const until = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      let stale = false;
      try {
        stale = Date.now() - statSync(lock).mtimeMs > 300_000;
      } catch {
        /* released meanwhile */
      }
      if (stale) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > until)
        throw new Error(`timed out waiting for ${lock}; remove it if no other start is running`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Starts what is missing and returns the connection settings every service and test uses. */
export async function up(settings, log = console.error) {
  return withLock(settings, async () => {
    const databaseUrl = await ensurePostgres(settings, log);
    const kafkaBrokers = await startKafka(settings, log);
    const schemaRegistryUrl = await startRegistry(settings, databaseUrl, log);
    const env = {
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: kafkaBrokers,
      SCHEMA_REGISTRY_URL: schemaRegistryUrl,
    };
    // A cluster's topics are created with its replication (the services read these two settings).
    const { replicationFactor, minInsyncReplicas } = kafkaReplication(settings);
    if (replicationFactor > 1) {
      env.HOLDFAST_KAFKA_REPLICATION_FACTOR = String(replicationFactor);
      env.HOLDFAST_KAFKA_MIN_INSYNC_REPLICAS = String(minInsyncReplicas);
    }
    writeFileSync(join(settings.runDir, 'env.json'), JSON.stringify(env, null, 2) + '\n');
    return env;
  });
}

/** Stops the daemons this project started (registry first: it holds PostgreSQL connections). */
export async function down(settings, log = console.error) {
  // Every broker a run may have started: a lone one (`kafka`) and a cluster's (`kafka-1` …).
  const brokers = ['kafka', ...Array.from({ length: 9 }, (_, i) => `kafka-${i + 1}`)];
  for (const name of ['registry', ...brokers]) {
    if (name.startsWith('kafka-') && !readPid(settings, name)) continue;
    if (await stopDaemon(settings, name)) log(`${name}: stopped`);
    else log(`${name}: not running (or not started by us)`);
  }
  if (await stopEmbeddedPostgres(settings)) log('postgres: embedded server stopped');
}

export async function status(settings) {
  const r = settings.registry;
  let env = null;
  try {
    env = JSON.parse(readFileSync(join(settings.runDir, 'env.json'), 'utf8'));
  } catch {
    /* never started */
  }
  const nodes = kafkaNodes(settings);
  const brokers = [];
  for (const n of nodes)
    brokers.push({
      name: n.name,
      address: `${n.host}:${n.port}`,
      listening: await portOpen(n.host, n.port),
      pid: readPid(settings, n.name) ?? null,
    });
  return {
    kafka: nodes.length === 1 ? brokers[0] : { brokers, replication: kafkaReplication(settings) },
    registry: {
      url: registryUrl(settings),
      listening: await portOpen(r.host, r.port),
      pid: readPid(settings, 'registry') ?? null,
    },
    env,
    logs: settings.runDir,
  };
}
