#!/usr/bin/env node
// npm run infra:up | infra:down | infra:status  (and `compose` to regenerate docker-compose.yml)
// `npm run infra:up -- --brokers 3` starts a three-broker KRaft cluster (HOLDFAST_KAFKA_BROKER_COUNT).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCompose } from './lib/compose.mjs';
import { loadSettings } from './lib/settings.mjs';
import { down, status, up } from './lib/stack.mjs';

const cmd = process.argv[2];
const overrides = {};
for (let i = 3; i < process.argv.length; i++) {
  if (process.argv[i] === '--brokers') overrides.HOLDFAST_KAFKA_BROKER_COUNT = process.argv[++i];
  else {
    console.error(`unknown option ${process.argv[i]}`);
    process.exit(2);
  }
}
const settings = loadSettings({ ...process.env, ...overrides });
try {
  if (cmd === 'up') {
    const env = await up(settings);
    for (const [k, v] of Object.entries(env)) console.log(`${k}=${v}`);
  } else if (cmd === 'down') {
    await down(settings);
  } else if (cmd === 'status') {
    console.log(JSON.stringify(await status(settings), null, 2));
  } else if (cmd === 'compose') {
    writeFileSync(fileURLToPath(new URL('../docker-compose.yml', import.meta.url)), renderCompose());
    console.log('wrote docker-compose.yml');
  } else {
    console.error('usage: node infra/cli.mjs up|down|status|compose');
    process.exit(2);
  }
} catch (err) {
  console.error(`infra ${cmd}: ${err.message}`);
  process.exit(1);
}
