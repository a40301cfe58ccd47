// npm run bench -- seal-floor [--orders N] [--new-share F] [--clear-us U] [--runs R]
//
// The least CPU that sealing can add to an order, whatever the code around it: the cryptographic
// calls alone, in a tight loop, no I/O, no allocation we could avoid. Per order: one seal (gateway)
// and one open (projector) with production's `sealFields` / `openFields`; per order that brings a
// new data subject (share F, 1/3 in the backfill bench's data): up to three blind indexes
// (`blindIndex`), a new key wrapped and unwrapped (AES-256-GCM under a cached KeyObject, as
// PgSubjectKeyStore does) and two key imports (gateway and projector).
//
// With U the CPU both services spend per order in clear (µs, from `npm run bench -- backfill
// --sealing both`), `clear / (clear + floor)` is the best on/off ratio a CPU-bound backfill could
// reach on this machine with a key per subject and one AEAD per record: the bound issue 23's 15 %
// target is measured against (docs/privacy.md, "Cost").
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { blindIndex, openFields, PERSONAL_LAYOUTS, personalAad, sealFields } from '@holdfast/privacy';
import { median, report } from './report.js';

const LAYOUT = PERSONAL_LAYOUTS.OrderUpserted;

function cpuUs(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return d.user + d.system;
}

export function benchSealFloor(args: Record<string, string>): Promise<void> {
  const orders = Number(args.orders ?? 100_000);
  const newShare = Number(args['new-share'] ?? 1 / 3);
  const clearUs = Number(args['clear-us'] ?? 103);
  const runs = Number(args.runs ?? 5);
  const account = '3f0c1c2e-7d1b-4c55-9a43-2d6f9f1b8a10';
  const indexKey = randomBytes(32);
  const wrapKey = createSecretKey(randomBytes(32));
  const dataKey = randomBytes(32);
  const values = ['ada.lovelace@example.com', '+14155550123', 'Ada Lovelace', 'London', 'CA', '94103'];
  const subjects = orders * newShare;

  const perOrder = { seal: [] as number[], open: [] as number[], subject: [] as number[] };
  for (let run = 0; run < runs; run++) {
    const ivs = randomBytes(12 * orders);
    const sealed: Buffer[] = new Array<Buffer>(orders);
    perOrder.seal.push(
      cpuUs(() => {
        for (let i = 0; i < orders; i++)
          sealed[i] = sealFields(
            dataKey,
            personalAad(account, 's', `e${i}`),
            values,
            ivs.subarray(12 * i, 12 * i + 12),
          );
      }) / orders,
    );
    perOrder.open.push(
      cpuUs(() => {
        for (let i = 0; i < orders; i++)
          openFields(dataKey, personalAad(account, 's', `e${i}`), sealed[i]!, LAYOUT);
      }) / orders,
    );
    // Per new subject: 3 HMACs, a key made and wrapped, unwrapped, imported twice.
    const keys = randomBytes(32 * subjects);
    const kivs = randomBytes(12 * subjects);
    perOrder.subject.push(
      cpuUs(() => {
        for (let i = 0; i < subjects; i++) {
          blindIndex(indexKey, 'email', `person${i}@example.com`);
          blindIndex(indexKey, 'phone', `+1415555${String(i).padStart(4, '0')}`);
          blindIndex(indexKey, 'external_id', `cust-${i}`);
          const key = keys.subarray(32 * i, 32 * i + 32);
          const iv = kivs.subarray(12 * i, 12 * i + 12);
          const c = createCipheriv('aes-256-gcm', wrapKey, iv);
          const ct = c.update(key);
          c.final();
          const tag = c.getAuthTag();
          const d = createDecipheriv('aes-256-gcm', wrapKey, iv);
          d.setAuthTag(tag);
          const back = d.update(ct);
          d.final();
          createSecretKey(key);
          createSecretKey(back);
        }
      }) / orders,
    );
    console.error(
      `run ${run + 1}: seal ${perOrder.seal.at(-1)!.toFixed(2)} µs, open ${perOrder.open.at(-1)!.toFixed(2)} µs, ` +
        `new subjects ${perOrder.subject.at(-1)!.toFixed(2)} µs per order`,
    );
  }
  const seal = median(perOrder.seal);
  const open = median(perOrder.open);
  const subject = median(perOrder.subject);
  const floor = seal + open + subject;
  const bestRatio = clearUs / (clearUs + floor);
  report(
    'seal-floor',
    {
      orders,
      runs,
      new_subject_share: Number(newShare.toFixed(3)),
      seal_us_per_order: Number(seal.toFixed(2)),
      open_us_per_order: Number(open.toFixed(2)),
      new_subject_us_per_order: Number(subject.toFixed(2)),
      floor_us_per_order: Number(floor.toFixed(2)),
      clear_us_per_order: clearUs,
      best_on_off_ratio: Number(bestRatio.toFixed(3)),
      load_avg_1m: Number(loadavg()[0]!.toFixed(2)),
    },
    [
      ['seal (gateway), µs per order', seal.toFixed(2)],
      ['open (projector), µs per order', open.toFixed(2)],
      [`new subjects (share ${newShare.toFixed(2)}), µs per order`, subject.toFixed(2)],
      ['floor: cryptography alone, µs per order', floor.toFixed(2)],
      ['clear path, both services, µs per order (--clear-us)', clearUs],
      ['best on/off ratio a CPU-bound backfill can reach', bestRatio.toFixed(3)],
    ],
  );
  return Promise.resolve();
}
