#!/usr/bin/env node
// npm run infra:up | infra:down | infra:status  (and `compose` to regenerate docker-compose.yml)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCompose } from './lib/compose.mjs';
import { loadSettings } from './lib/settings.mjs';
import { down, status, up } from './lib/stack.mjs';

const settings = loadSettings();
const cmd = process.argv[2];
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
