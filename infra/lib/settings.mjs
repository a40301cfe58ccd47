// Loads infra/settings.json and applies environment overrides, once.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const raw = JSON.parse(readFileSync(new URL('../settings.json', import.meta.url), 'utf8'));

function withEnv(section, env) {
  const out = { ...section };
  for (const [key, name] of Object.entries(section.env ?? {})) {
    if (env[name]) out[key] = /^\d+$/.test(env[name]) ? Number(env[name]) : env[name];
  }
  delete out.env;
  return out;
}

/** The resolved settings of the local stack for this environment. */
export function loadSettings(env = process.env) {
  const cacheDir = env.HOLDFAST_CACHE ?? join(homedir(), '.cache', 'holdfast');
  return Object.freeze({
    cacheDir,
    // Downloads (Kafka jars, the registry) can be shared between stacks; run state and data cannot.
    installDir: env.HOLDFAST_INSTALL_DIR ?? cacheDir,
    runDir: join(cacheDir, 'run'),
    dataDir: env.HOLDFAST_DATA ?? join(cacheDir, 'data'),
    kafka: withEnv(raw.kafka, env),
    registry: withEnv(raw.registry, env),
    postgres: withEnv(raw.postgres, env),
    services: raw.services,
    databaseUrl: env.DATABASE_URL,
  });
}

export const rawSettings = raw;
