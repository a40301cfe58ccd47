// `holdfast replay` and `holdfast dlq` as an operator runs them: the CLI as a child process (resolving
// workspace packages from source), against this file's slice of the real stack.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionalAppender, topicName } from '@holdfast/kafka';
import { createTestEnv, REPO_ROOT, type TestEnv } from '@holdfast/testing';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

let t: TestEnv;

beforeAll(async () => {
  t = await createTestEnv('projcli');
  const appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}cli`, size: 1 });
  const a = randomUUID();
  const topic = topicName(t.topicPrefix, 'holdfast.commerce');
  await appender.append([
    ...Array.from({ length: 20 }, (_, i) => ({
      topic,
      key: a,
      value: t.codec.encode('OrderUpserted', orderUpserted(metadata(a), orderRow({ order_id: `o-${i}` }))),
    })),
    { topic, key: a, value: Buffer.from('garbage') },
  ]);
  await appender.close();
});
afterAll(() => t.close());

async function holdfast(...argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'packages/cli/src/main.ts', ...argv],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...t.env, HOLDFAST_READ_SCHEMA: DEFAULT_READ_MODEL_SCHEMA },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, stdout, stderr };
}

describe('holdfast replay and dlq', () => {
  it('rebuilds from offset 0 with progress, then lists and re-drives the dead letter it found', async () => {
    const replay = await holdfast('replay', '--json');
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({
      switched: true,
      read_schema: DEFAULT_READ_MODEL_SCHEMA,
      projections: expect.arrayContaining(['commerce']),
    });
    expect(replay.stderr).toMatch(/final: \d+\/\d+ \(100%\)/);
    const { rows } = await t.pool.query<{ n: number }>(`select count(*)::int as n from read_models.orders`);
    expect(rows[0]!.n).toBe(20);

    const list = await holdfast('dlq', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    const dead = JSON.parse(list.stdout) as { id: string; reason: string }[];
    expect(dead).toHaveLength(1);
    expect(dead[0]!.reason).toMatch(/^undecodable/);

    const redrive = await holdfast('dlq', 'replay', dead[0]!.id, '--json');
    expect([redrive.code, JSON.parse(redrive.stdout)]).toEqual([
      0,
      { redriven: [dead[0]!.id], not_found: [] },
    ]);
    const { rows: letters } = await t.pool.query(`select id, status from read_models.dead_letters`);
    expect(letters).toEqual([{ id: dead[0]!.id, status: 'redriven' }]);
  });
});
