import pg from 'pg';
import { createKafka } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';

/** Drops the databases and topics a test run created (named after its run id). */
export async function dropRunResources(
  env: { DATABASE_URL: string; KAFKA_BROKERS: string },
  runId: string,
): Promise<void> {
  const admin = new URL(env.DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      `select datname from pg_database where datname like $1`,
      [`hf_${runId}_%`],
    );
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
  } finally {
    await client.end();
  }
  const kafka = createKafka(env.KAFKA_BROKERS.split(','), 'cleanup', silentLogger);
  const ka = kafka.admin();
  await ka.connect();
  try {
    const topics = (await ka.listTopics()).filter((t) => t.startsWith(`t${runId}`));
    if (topics.length) await ka.deleteTopics(topics);
    const groups = (await ka.listGroups()).filter((g) => g.startsWith(`t${runId}`));
    if (groups.length) await ka.deleteGroups(groups).catch(() => {});
  } finally {
    await ka.disconnect();
  }
}
