import { rawQuery, type Pool } from '@holdfast/postgres';
import type { LagSource } from '@holdfast/kafka';
import { Counter, Gauge, Histogram, type Registry } from '@holdfast/platform';

export type { LagSource } from '@holdfast/kafka';

/** The projector's Prometheus metrics. */
export class ProjectorMetrics {
  private readonly records: Counter<'projection' | 'outcome'>;
  private readonly chunkSeconds: Histogram<'projection'>;
  private readonly lagSources: LagSource[] = [];

  constructor(registry: Registry) {
    this.records = new Counter({
      name: 'holdfast_projector_records_total',
      help: 'Records folded into read models, by outcome (applied or dead_lettered).',
      labelNames: ['projection', 'outcome'],
      registers: [registry],
    });
    this.chunkSeconds = new Histogram({
      name: 'holdfast_projector_chunk_seconds',
      help: 'Time to apply one chunk (one transaction with its checkpoint).',
      labelNames: ['projection'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    const sources = this.lagSources;
    new Gauge({
      name: 'holdfast_projector_lag_records',
      help: 'Records not yet applied per partition: high watermark minus the consumer group committed offset.',
      labelNames: ['topic', 'partition'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const source of sources) {
          for (const l of await source().catch(() => []))
            this.set({ topic: l.topic, partition: String(l.partition) }, l.lag);
        }
      },
    });
  }

  /**
   * Adds `holdfast_dead_letters{projection}`: records waiting in the dead-letter table (status `dead`,
   * not yet re-driven), read from PostgreSQL at scrape time. A scrape while PostgreSQL is away leaves
   * it out (the alert on it then waits rather than clears).
   */
  watchDeadLetters(registry: Registry, pool: Pool, schema: string): void {
    new Gauge({
      name: 'holdfast_dead_letters',
      help: 'Records in the dead-letter table not yet re-driven, by projection.',
      labelNames: ['projection'],
      registers: [registry],
      async collect() {
        const result = await rawQuery<{ projection: string; n: number }>(
          pool,
          'metrics.dead-letters',
          `select projection, count(*)::int as n from "${schema}".dead_letters
            where status = 'dead' group by projection`,
        ).catch(() => undefined);
        if (!result) return this.reset();
        this.reset();
        for (const r of result.rows) this.set({ projection: r.projection }, r.n);
      },
    });
  }

  addLagSource(source: LagSource): void {
    this.lagSources.push(source);
  }

  observeChunk(projection: string, applied: number, deadLettered: number, startedNs: bigint): void {
    this.records.inc({ projection, outcome: 'applied' }, applied);
    if (deadLettered) this.records.inc({ projection, outcome: 'dead_lettered' }, deadLettered);
    this.chunkSeconds.observe({ projection }, Number(process.hrtime.bigint() - startedNs) / 1e9);
  }
}
