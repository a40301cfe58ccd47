/**
 * The CDNOW 1/10 sample for tests and benchmarks, read from CDNOW_DIR or ../shared/data/cdnow beside
 * the repository (never copied into it), as cdnow.test.ts reads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import type { OrderInput } from '../summary.js';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const dataDir = process.env.CDNOW_DIR ?? path.resolve(repoRoot, '../shared/data/cdnow');

function readData(name: string): string {
  const file = path.join(dataDir, name);
  if (!existsSync(file)) {
    throw new Error(
      `CDNOW data file ${file} not found: put CDNOW_sample.txt and cdnow_customers_summary.csv (Bruce ` +
        "Hardie's datasets page, or lifetimes/datasets/) in ../shared/data/cdnow or point CDNOW_DIR at them.",
    );
  }
  return readFileSync(file, 'utf8');
}

/** CDNOW_sample.txt as orders: `master_id sample_id yyyymmdd n_cds dollars`, sample_id the customer. */
export function readCdnowOrders(): OrderInput[] {
  return readData('CDNOW_sample.txt')
    .trim()
    .split(/\r?\n/)
    .map((line) => {
      const [, id, ymd, , dollars] = line.trim().split(/\s+/) as [string, string, string, string, string];
      const date = `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;
      return { customerId: String(Number(id)), orderDate: date, amount: Number(dollars) };
    });
}

/** cdnow_customers_summary.csv rows: [id, frequency, recency, T] (durations rounded to 2 decimals). */
export function readCdnowSummaryRows(): number[][] {
  const rows: string[][] = parse(readData('cdnow_customers_summary.csv'), {
    from_line: 2,
    skip_empty_lines: true,
  });
  return rows.map((row) => row.map(Number));
}
