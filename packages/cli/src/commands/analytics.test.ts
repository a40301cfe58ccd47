// `holdfast analytics fit` on CDNOW: the CSV is generated here from CDNOW_sample.txt (read from CDNOW_DIR
// or ../shared/data/cdnow beside the repository; never copied into it), and the fit must reproduce the
// published BG/NBD parameters (Fader, Hardie & Lee 2005) within 0.5%.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';
import { readOrderCsv } from './analytics.js';

const CDNOW_DIR = process.env.CDNOW_DIR ?? resolve(REPO_ROOT, '../shared/data/cdnow');

/** customer_id,order_date,order_amount from the sample's `master_id sample_id yyyymmdd n_cds dollars` lines. */
function cdnowCsv(): string {
  const file = join(CDNOW_DIR, 'CDNOW_sample.txt');
  if (!existsSync(file))
    throw new Error(
      `CDNOW_sample.txt not found in ${CDNOW_DIR}: set CDNOW_DIR to the directory holding the CDNOW files ` +
        "(Bruce Hardie's datasets page, or CamDavidsonPilon/lifetimes lifetimes/datasets/); do not copy them into the repository",
    );
  const lines = readFileSync(file, 'utf8').trim().split(/\r?\n/);
  const rows = lines.map((line) => {
    const [, id, ymd, , dollars] = line.trim().split(/\s+/) as [string, string, string, string, string];
    return `${id},${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)},${dollars}`;
  });
  return `customer_id,order_date,order_amount\n${rows.join('\n')}\n`;
}

let dir: string;
let cdnow: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'holdfast-analytics-'));
  cdnow = join(dir, 'cdnow.csv');
  await writeFile(cdnow, cdnowCsv());
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Fit {
  customers: number;
  repeat_customers: number;
  bgnbd: Record<'r' | 'alpha' | 'a' | 'b' | 'log_likelihood', number>;
  pareto_nbd: Record<'r' | 'alpha' | 's' | 'beta' | 'log_likelihood', number> & { failure: string | null };
  gamma_gamma: Record<'p' | 'q' | 'gamma' | 'log_likelihood', number>;
}

const within = (actual: number, published: number, share: number) =>
  expect(Math.abs(actual - published) / published).toBeLessThanOrEqual(share);

describe('holdfast analytics fit', () => {
  it('given the CDNOW sample with calibration end 1997-09-30, then --json prints the published BG/NBD fit within 0.5%', async () => {
    const run = await runCaptured(
      ['analytics', 'fit', '--orders', cdnow, '--calibration-end', '1997-09-30', '--json'],
      {},
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const fit = run.json<Fit>();
    expect(Object.keys(fit)).toEqual(['customers', 'repeat_customers', 'bgnbd', 'pareto_nbd', 'gamma_gamma']);
    expect(Object.keys(fit.pareto_nbd).sort()).toEqual([
      'alpha',
      'beta',
      'failure',
      'log_likelihood',
      'r',
      's',
    ]);
    expect(Object.keys(fit.bgnbd).sort()).toEqual(['a', 'alpha', 'b', 'log_likelihood', 'r']);
    expect(Object.keys(fit.gamma_gamma).sort()).toEqual(['gamma', 'log_likelihood', 'p', 'q']);
    expect(fit).toMatchObject({ customers: 2357, repeat_customers: 946 });
    within(fit.bgnbd.r, 0.243, 0.005);
    within(fit.bgnbd.alpha, 4.414, 0.005);
    within(fit.bgnbd.a, 0.793, 0.005);
    within(fit.bgnbd.b, 2.426, 0.005);
    expect(fit.bgnbd.log_likelihood).toBeCloseTo(-9582.4, 0);
    // Pareto/NBD as CLVTools fits it (docs/analytics.md, "Pareto/NBD").
    expect(fit.pareto_nbd.failure).toBeNull();
    within(fit.pareto_nbd.r, 0.55315, 5e-4);
    within(fit.pareto_nbd.alpha, 10.57633, 5e-4);
    within(fit.pareto_nbd.s, 0.60625, 5e-4);
    within(fit.pareto_nbd.beta, 11.6715, 5e-4);
    within(-fit.pareto_nbd.log_likelihood, 9594.976, 1e-6);
    within(fit.gamma_gamma.p, 6.25, 0.005);
    within(fit.gamma_gamma.q, 3.74, 0.005);
    within(fit.gamma_gamma.gamma, 15.44, 0.005);
  });

  it('without --json prints the fit for people', async () => {
    const run = await runCaptured(
      ['analytics', 'fit', '--orders', cdnow, '--calibration-end', '1997-09-30'],
      {},
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^customers 2357, repeat customers 946\nBG\/NBD {7}r=0\.2425\d+ alpha=4\.413\d+ a=0\.7929\d+ b=2\.4259\d+/,
    );
    expect(run.stdout).toMatch(
      /\nPareto\/NBD {3}r=0\.5532\d+ alpha=10\.577\d+ s=0\.6062\d+ beta=11\.668\d+ {2}log-likelihood -9594\.976\n/,
    );
  });

  it.each([
    [['--orders', 'nope.csv', '--calibration-end', '1997-09-30'], 3, 'no such file: nope.csv'],
    [
      ['--orders', 'x.csv', '--calibration-end', 'soon'],
      2,
      '--calibration-end must be a date such as 1997-09-30, not "soon"',
    ],
  ])('given %j, exits %i with a message', async (args, code, message) => {
    const run = await runCaptured(['analytics', 'fit', ...args], {});
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
  });

  it('given a bad row far into a large file, then exit 2 names the file line', async () => {
    const file = join(dir, 'large.csv');
    const lines = ['order_amount,customer_id,order_date'];
    for (let i = 0; i < 120_000; i++)
      lines.push(`${(i % 50) + 1},c${i % 4000},2024-0${1 + (i % 9)}-1${i % 10}`);
    lines[110_000] = '12,c1,not-a-date';
    await writeFile(file, `${lines.join('\n')}\n`);
    const run = await runCaptured(
      ['analytics', 'fit', '--orders', file, '--calibration-end', '2024-12-31'],
      {},
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: line 110001: invalid order_date "not-a-date"`);
  });

  it('reads a file larger than one parsing chunk completely, columns in any order', async () => {
    const file = join(dir, 'chunks.csv');
    const lines = ['order_amount,customer_id,extra,order_date'];
    for (let i = 0; i < 120_001; i++) lines.push(`${i},c${i},x,2024-01-01`);
    await writeFile(file, `\uFEFF${lines.join('\r\n')}\r\n`);
    const rows = await readOrderCsv(file);
    expect(rows).toHaveLength(120_001);
    expect(rows[120_000]).toEqual({
      customer_id: 'c120000',
      order_date: '2024-01-01',
      order_amount: 120_000,
    });
  });

  it('given orders without a single repeat purchase, then exit 2 says why', async () => {
    const file = join(dir, 'once.csv');
    await writeFile(file, 'customer_id,order_date,order_amount\na,2024-01-01,5\nb,2024-01-02,6\n');
    const run = await runCaptured(
      ['analytics', 'fit', '--orders', file, '--calibration-end', '2024-12-31'],
      {},
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(file);
  });
});
