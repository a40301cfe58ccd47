// Tools some tests drive, from Debian's packages (never a test tool's own download): Chromium for the
// browser test, docker-compose to validate the compose file with a real implementation, openssl for
// the certificates of the SASL_SSL broker test, promtool (Debian's prometheus) for the alerting rules,
// kcat for the erasure test's raw read of every topic.
// On a fresh machine the missing ones are installed here, once, when we may (root with apt-get);
// otherwise the reason is printed and those tests say so.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const TOOLS = [
  {
    bin: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    pkg: 'chromium',
    why: 'the browser tests (the pixel, the console)',
  },
  { bin: '/usr/bin/docker-compose', pkg: 'docker-compose', why: 'the compose validation' },
  { bin: '/usr/bin/openssl', pkg: 'openssl', why: 'the SASL_SSL broker test' },
  { bin: '/usr/bin/promtool', pkg: 'prometheus', why: 'the alerting-rule tests' },
  {
    bin: '/usr/bin/kcat',
    pkg: 'kcat',
    why: 'the erasure test (raw topic bytes read by an independent client)',
  },
];

export function ensureSystemTools() {
  const missing = TOOLS.filter((t) => !existsSync(t.bin));
  if (missing.length === 0) return true;
  const root = process.getuid?.() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    for (const t of missing)
      console.error(`[setup] ${t.bin} is missing: install Debian's ${t.pkg} package (${t.why} needs it)`);
    return false;
  }
  const pkgs = missing.map((t) => t.pkg).join(' ');
  console.error(`[setup] installing Debian ${pkgs} for ${missing.map((t) => t.why).join(', ')} (once) ...`);
  execSync(
    `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${pkgs} >/dev/null`,
    { stdio: 'inherit', shell: '/bin/bash' },
  );
  return missing.every((t) => existsSync(t.bin));
}

if (import.meta.url === `file://${process.argv[1]}`) ensureSystemTools();
