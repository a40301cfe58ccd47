// The operator's kit (deploy/prometheus, deploy/grafana) checked with a real rule validator:
// promtool (Debian's `prometheus` package, installed by scripts/ensure-system-tools.mjs) parses the
// rules and every dashboard query, and runs the rules' unit tests; every metric they name is one the
// services register, and every alert has its runbook entry.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';
const RULES = join(ROOT, 'deploy/prometheus/holdfast-alerts.yml');
const RULE_TESTS = join(ROOT, 'deploy/prometheus/holdfast-alerts.test.yml');
const DASHBOARD = join(ROOT, 'deploy/grafana/holdfast-overview.json');

function promtool(...args: string[]): { status: number | null; output: string } {
  if (!existsSync(PROMTOOL))
    throw new Error(`${PROMTOOL} is missing: install Debian's prometheus package (npm test does, as root)`);
  const r = spawnSync(PROMTOOL, args, { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Every `holdfast_*` metric the product registers (not its tests), with a histogram's series. */
function registeredMetrics(): Set<string> {
  const files = execFileSync('git', ['ls-files', '--', 'packages', 'services'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => /^(packages|services)\/[^/]+\/src\/.*\.ts$/.test(f) && !/\.test\.ts$/.test(f));
  const names = new Set<string>();
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    for (const m of text.matchAll(/new (Counter|Gauge|Histogram)\(\{\s*name: '(holdfast_[a-z_]+)'/g)) {
      names.add(m[2]!);
      if (m[1] === 'Histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m[2]! + s);
    }
  }
  return names;
}

const metricsIn = (expr: string) => [...expr.matchAll(/\b(holdfast_[a-z_]+)\b/g)].map((m) => m[1]!);

interface Dashboard {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
}
const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const dashboardExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const rulesText = readFileSync(RULES, 'utf8');
const alertNames = [...rulesText.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);

describe('alerting rules', () => {
  it('given the rules file, when promtool checks it, then every rule parses', () => {
    const r = promtool('check', 'rules', RULES);
    expect(r.output).toContain(`SUCCESS: ${alertNames.length} rules found`);
    expect(r.status).toBe(0);
  });

  it("given the rules' unit tests, when promtool runs them, then each alert fires exactly when it should", () => {
    const r = promtool('test', 'rules', RULE_TESTS);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('given every alert, then the unit tests exercise it and docs/reliability.md has its runbook entry', () => {
    const tests = readFileSync(RULE_TESTS, 'utf8');
    const runbook = readFileSync(join(ROOT, 'docs/reliability.md'), 'utf8');
    expect(alertNames.length).toBeGreaterThan(10);
    for (const name of alertNames) {
      expect(tests, name).toMatch(new RegExp(`alertname: ${name}\\n[\\s\\S]*?exp_labels`));
      expect(runbook, name).toMatch(new RegExp(`^#### ${name}$`, 'm'));
      expect(rulesText, name).toContain(`runbook: docs/reliability.md#${name.toLowerCase()}`);
    }
  });
});

describe('dashboard', () => {
  it('given every panel query, when promtool parses it as a recording rule, then it is valid PromQL', () => {
    expect(dashboardExprs.length).toBeGreaterThan(10);
    const dir = mkdtempSync(join(tmpdir(), 'holdfast-dashboard-'));
    const file = join(dir, 'queries.yml');
    const rules = dashboardExprs
      .map((e, i) => `      - record: dashboard_query_${i}\n        expr: ${JSON.stringify(e)}`)
      .join('\n');
    writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules}\n`);
    const r = promtool('check', 'rules', file);
    expect(r.output).toContain(`SUCCESS: ${dashboardExprs.length} rules found`);
  });

  it('given a query that is not PromQL, when checked the same way, then promtool refuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'holdfast-dashboard-'));
    const file = join(dir, 'bad.yml');
    writeFileSync(
      file,
      `groups:\n  - name: bad\n    rules:\n      - record: bad\n        expr: "sum(rate(x[5m]) by"\n`,
    );
    expect(promtool('check', 'rules', file).status).not.toBe(0);
  });
});

describe('metric names', () => {
  it('given the rules and the dashboard, then every holdfast_ metric they name is registered by a service', () => {
    const registered = registeredMetrics();
    expect(registered.has('holdfast_projector_lag_records')).toBe(true);
    const used = new Set([...metricsIn(rulesText), ...dashboardExprs.flatMap(metricsIn)]);
    const unknown = [...used].filter((n) => !registered.has(n));
    expect(unknown).toEqual([]);
  });

  it('given the deploy folder, then the kit is where docs/reliability.md says', () => {
    expect(readdirSync(join(ROOT, 'deploy/prometheus')).sort()).toEqual([
      'holdfast-alerts.test.yml',
      'holdfast-alerts.yml',
    ]);
  });
});
