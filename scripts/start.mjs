// npm start: the local stack (Kafka, the registry, PostgreSQL), a build, then every service in the
// foreground with readable logs. A service that exits is restarted with backoff (1 s doubling to
// 30 s, reset after a minute up; scripts/lib/supervisor.mjs), and every restart is logged. Ctrl-C
// stops the services, and the stack too if this run started it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadSettings } from '../infra/lib/settings.mjs';
import { down, status, up } from '../infra/lib/stack.mjs';
import { supervise } from './lib/supervisor.mjs';

const SERVICES = ['projector', 'gateway', 'recompute', 'dispatcher', 'console'];
const COLORS = { projector: 36, gateway: 32, recompute: 35, dispatcher: 33, console: 34 };
const settings = loadSettings();
const port = Number(process.env.PORT ?? settings.services.gateway.port);
const baseUrl = `http://127.0.0.1:${port}`;
// The console (services/console) on its own port; its links (invitations) are built on this URL.
const consolePort = Number(process.env.HOLDFAST_CONSOLE_PORT ?? settings.services.console.port);
const consoleUrl = process.env.HOLDFAST_CONSOLE_URL ?? `http://127.0.0.1:${consolePort}`;
// The gateway's /readyz is on its ops listener (HOLDFAST_OPS_PORT, default 9465), not the API port.
const opsUrl = `http://127.0.0.1:${Number(process.env.HOLDFAST_OPS_PORT ?? 9465)}`;

const before = await status(settings);
const startedStack = !before.kafka.listening || !before.registry.listening;
const env = await up(settings, (m) => console.log(`[infra] ${m}`));

console.log('[build] tsc -b ...');
// Build only what runs (services and the CLI): benches and tests are type-checked by npm test.
const build = spawnSync('npx', ['tsc', '-b', ...SERVICES.map((s) => `services/${s}`), 'packages/cli'], {
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

// Every schema first (`holdfast migrate`, what each service also runs at its start): the console
// runs no DDL, and started beside the others it met an empty database and was restarted once.
const migrated = spawnSync(process.execPath, [join('packages', 'cli', 'dist', 'main.js'), 'migrate'], {
  env: { ...process.env, ...env },
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (migrated.status !== 0) process.exit(migrated.status ?? 1);

// The gateway seals webhook secrets minted over POST /v1/webhooks to a public key derived from the
// master key it never holds (docs/webhooks.md); locally the CLI prints it from the dev master key.
function webhookSealKey() {
  if (process.env.HOLDFAST_WEBHOOK_SEAL_KEY) return process.env.HOLDFAST_WEBHOOK_SEAL_KEY;
  const cli = join('packages', 'cli', 'dist', 'main.js');
  if (!existsSync(cli)) return undefined;
  const r = spawnSync(process.execPath, [cli, 'secrets', 'webhook-seal-key', '--json'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  try {
    return r.status === 0 ? JSON.parse(r.stdout).setting : undefined;
  } catch {
    return undefined;
  }
}
const sealKey = webhookSealKey();
if (!sealKey)
  console.log(
    '[start] no HOLDFAST_WEBHOOK_SEAL_KEY: POST /v1/webhooks answers 503, the console cannot create subscriptions',
  );

// pino JSON lines → "12:00:01 gateway info http_request status=200 ..."
function pretty(name, line) {
  let msg = line;
  try {
    const j = JSON.parse(line);
    const { level, time, event, service: _s, pid: _p, hostname: _h, msg: m, ...rest } = j;
    const lvl =
      { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }[level] ?? level;
    const ctx = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
      .join(' ');
    msg = `${new Date(time).toISOString().slice(11, 19)} ${lvl} ${event ?? m ?? ''} ${ctx}`;
  } catch {
    /* not JSON: print as is */
  }
  return `\x1b[${COLORS[name] ?? 37}m${name.padEnd(10)}\x1b[0m ${msg}`;
}

const supervised = [];
for (const name of SERVICES) {
  const entry = join('services', name, 'dist', 'main.js');
  if (!existsSync(entry)) continue;
  const start = () => {
    const child = spawn(process.execPath, [entry], {
      env: {
        ...process.env,
        ...env,
        PORT: name === 'gateway' ? String(port) : name === 'console' ? String(consolePort) : '',
        ...((name === 'gateway' || name === 'console') && sealKey
          ? { HOLDFAST_WEBHOOK_SEAL_KEY: sealKey }
          : {}),
        ...(name === 'console'
          ? { HOLDFAST_CONSOLE_URL: consoleUrl, HOLDFAST_GATEWAY_URL: baseUrl, HOLDFAST_OPS_PORT: '9468' }
          : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (l) => console.log(pretty(name, l)));
    }
    return child;
  };
  // One blip must not take the installation down: the service comes back on its own, and the log
  // says when and how often.
  supervised.push({ name, supervisor: supervise({ name, start, log: (m) => console.log(pretty(name, m)) }) });
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping services ...');
  await Promise.all(supervised.map((s) => s.supervisor.stop()));
  if (startedStack) {
    console.log('stopping the local stack this run started ...');
    await down(settings, (m) => console.log(`[infra] ${m}`));
  } else {
    console.log(
      'the local stack was running before `npm start` and keeps running (npm run infra:down stops it)',
    );
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

// Wait for the gateway, then print a ready-to-use account and key (kept in the cache, local only).
async function ready() {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    try {
      const r = await fetch(`${opsUrl}/readyz`);
      if (r.ok) return true;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

async function quickstart() {
  const file = join(settings.runDir, 'quickstart.json');
  let saved;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    /* first start */
  }
  if (saved) {
    const r = await fetch(`${baseUrl}/ingest/health`, {
      headers: { authorization: `Bearer ${saved.INGEST_KEY_A}` },
    });
    if (r.ok) return saved;
  }
  const cli = join('packages', 'cli', 'dist', 'main.js');
  if (!existsSync(cli)) return undefined;
  const r = spawnSync(process.execPath, [cli, 'dev', 'fixture', '--json', '--base-url', baseUrl], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (r.status !== 0) return undefined;
  const fixture = JSON.parse(r.stdout);
  writeFileSync(file, JSON.stringify(fixture, null, 2));
  return fixture;
}

// The console's first owner of the quick-start account: a one-time link, printed until it is used.
const CONSOLE_OWNER = 'owner@holdfast.local';
function firstSignIn(accountId) {
  const cli = join('packages', 'cli', 'dist', 'main.js');
  if (!existsSync(cli)) return undefined;
  const r = spawnSync(
    process.execPath,
    [cli, 'users', 'invite', '--account', accountId, '--email', CONSOLE_OWNER, '--role', 'owner', '--json'],
    { env: { ...process.env, ...env, HOLDFAST_CONSOLE_URL: consoleUrl }, encoding: 'utf8' },
  );
  if (r.status !== 0) return undefined;
  const out = JSON.parse(r.stdout);
  return { link: out.existing_user ? null : out.link };
}

if (supervised.some((s) => s.name === 'gateway')) {
  if (await ready()) {
    const f = await quickstart();
    console.log(`\n  Holdfast is up: ${baseUrl}  (OpenAPI: ${baseUrl}/v1/openapi.json)`);
    if (f) {
      console.log(`  account ${f.ACCOUNT_ID_A}\n  ingest key ${f.INGEST_KEY_A}`);
      console.log(`  try: curl -s ${baseUrl}/ingest/health -H 'Authorization: Bearer ${f.INGEST_KEY_A}'`);
    }
    const invite = f ? firstSignIn(f.ACCOUNT_ID_A) : undefined;
    console.log(`  console: ${consoleUrl}`);
    if (invite?.link) console.log(`  first sign-in (owner of account A, once): ${invite.link}`);
    else if (invite) console.log(`  sign in as ${CONSOLE_OWNER} (password and code set at the first link)`);
    console.log(`  read models: psql ${env.DATABASE_URL}\n  Ctrl-C stops.\n`);
  } else {
    console.log('the gateway did not become ready within 120 s; see its log lines above');
  }
} else {
  console.log(`\n  stack up: ${JSON.stringify(env)}\n  (no service is built yet)\n`);
}
