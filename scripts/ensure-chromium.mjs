// The browser test drives Debian's Chromium (never a test tool's own download). On a fresh machine
// it is installed here, once, when we may (root with apt-get); otherwise the reason is printed.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function ensureChromium() {
  if (existsSync(CHROMIUM)) return true;
  const root = process.getuid?.() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `[setup] ${CHROMIUM} is missing: install Debian's chromium package (the browser test needs it)`,
    );
    return false;
  }
  console.error('[setup] installing Debian chromium for the browser test (once) ...');
  execSync(
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null',
    {
      stdio: 'inherit',
      shell: '/bin/bash',
    },
  );
  return existsSync(CHROMIUM);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureChromium();
