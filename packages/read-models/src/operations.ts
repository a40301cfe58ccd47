import type { RetentionConfig } from '@holdfast/platform';

// The types of the operator operations on the read models (dead letters, rebuilds): the CLI prints
// them, @holdfast/projections implements the operations.

/** A dead letter as `holdfast dlq list` shows it. */
export interface DeadLetterRow {
  /** `projection:partition:offset`: what `holdfast dlq replay` takes. */
  readonly id: string;
  readonly projection: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly accountId: string | null;
  /** The request that appended the record (X-Request-Id), when it carried one. */
  readonly requestId: string | null;
  readonly reason: string;
  readonly recordTimestamp: Date | null;
  readonly status: 'dead' | 'redriven';
  readonly redrivenAt: Date | null;
  readonly valueBytes: number;
}

export interface DeadLetterFilter {
  readonly projection?: string;
  /** Default 'dead' (what still needs attention). */
  readonly status?: 'dead' | 'redriven' | 'all';
  readonly ids?: readonly string[];
  readonly limit?: number;
}

/** How far a rebuild is, against the high watermarks it is catching up to. */
export interface RebuildProgress {
  readonly phase: 'bulk' | 'catch-up' | 'final';
  /** Log positions consumed so far, summed over partitions (records and transaction markers). */
  readonly consumed: number;
  /** Positions to reach: the high watermarks of this phase. */
  readonly target: number;
  readonly partitionsDone: number;
  readonly partitions: number;
  readonly elapsedMs: number;
}

export interface RebuildOptions {
  readonly topicPrefix: string;
  /** The live read-model schema (rebuilt into `<readSchema>_next`, then switched in). */
  readonly readSchema: string;
  /** Projections to rebuild; all when omitted. */
  readonly projections?: readonly string[];
  readonly chunkSize?: number;
  /** Build `<readSchema>_next` but do not switch (for inspection). Default false. */
  readonly noSwitch?: boolean;
  /** Called about once a second per phase, and when a phase completes. */
  readonly onProgress?: (p: RebuildProgress) => void;
  /** Lag (records) small enough to pause the live projector for the final catch-up. Default 20,000. */
  readonly pauseBelow?: number;
  /** The clock of the group name and of the retention cut applied before the switch. */
  readonly now?: () => Date;
  /** The retention applied to the rebuilt tables before the switch (InfraConfig.retention); default 30 / 395 days. */
  readonly retention?: RetentionConfig;
}

export interface RebuildResult {
  readonly projections: readonly string[];
  readonly nextSchema: string;
  /** Where the replaced tables went (undefined with noSwitch). */
  readonly oldSchema?: string;
  readonly elapsedMs: number;
}

export interface RatesImportResult {
  readonly importId: number;
  readonly days: number;
  readonly currencies: readonly string[];
  readonly ratesAdded: number;
  /** Rates of the file already stored with the same value. */
  readonly ratesKnown: number;
  /** Orders whose conversion changed, over every converting schema. */
  readonly ordersReconverted: number;
  readonly version: number;
}

/** One group of orders that converted at 1.0 (or are not converted yet), for the operator. */
export interface UnconvertedOrders {
  readonly account_id: string;
  readonly currency: string;
  readonly reporting_currency: string;
  readonly fx_status: 'unknown_currency' | 'no_rate' | 'pending';
  readonly orders: number;
  readonly first_order_date: Date;
  readonly last_order_date: Date;
}
