import type { Pool } from '@holdfast/db';
import type { InfraConfig, Logger } from '@holdfast/platform';

/**
 * What the CLI asks of the projector, as a port: dead letters, rebuilds and reference rates. The CLI depends on this interface, not on the service; the projector's module
 * satisfies it (`projector-port.test.ts` fails to type-check the day it does not), and `loadProjector`
 * loads it by name when a command runs.
 */
export interface ProjectorPort {
  listDeadLetters(pool: Pool, schema: string, filter?: DeadLetterFilter): Promise<DeadLetterRow[]>;
  redriveDeadLetters(
    pool: Pool,
    appender: unknown,
    opts: { schema: string; topicPrefix: string } & Omit<DeadLetterFilter, 'status'>,
  ): Promise<{ redriven: string[] }>;
  connectProjectorDeps(
    config: InfraConfig,
    pool: Pool,
    logger: Logger,
    clientId: string,
  ): Promise<ConnectedTool>;
  rebuildReadModels(opts: RebuildOptions, deps: ConnectedTool['deps']): Promise<RebuildResult>;
  importReferenceRates(pool: Pool, source: string, bytes: Buffer): Promise<RatesImportResult>;
  unconvertedOrders(pool: Pool, schema: string, accountId?: string): Promise<UnconvertedOrders[]>;
  setReportingCurrency(pool: Pool, accountId: string, currency: string): Promise<number>;
  /** An input the operator must fix (a rates file, a currency); nothing was changed. */
  FxInputError: abstract new (...args: never[]) => Error;
}

/** The projector's Kafka and registry connections around the CLI's pool, for one command. */
export interface ConnectedTool {
  /** Opaque to the CLI: handed back to `rebuildReadModels`. */
  readonly deps: object;
  appender(): Promise<unknown>;
  close(): Promise<void>;
}

/** A dead letter as `holdfast dlq list` shows it. */
export interface DeadLetterRow {
  /** `projection:partition:offset`: what `holdfast dlq replay` takes. */
  readonly id: string;
  readonly projection: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly accountId: string | null;
  readonly requestId: string | null;
  readonly reason: string;
  readonly recordTimestamp: Date | null;
  readonly status: 'dead' | 'redriven';
  readonly redrivenAt: Date | null;
  readonly valueBytes: number;
}

export interface DeadLetterFilter {
  readonly projection?: string;
  readonly status?: 'dead' | 'redriven' | 'all';
  readonly ids?: readonly string[];
  readonly limit?: number;
}

export interface RebuildProgress {
  readonly phase: 'bulk' | 'catch-up' | 'final';
  readonly consumed: number;
  readonly target: number;
  readonly partitionsDone: number;
  readonly partitions: number;
  readonly elapsedMs: number;
}

export interface RebuildOptions {
  readonly topicPrefix: string;
  readonly readSchema: string;
  readonly projections?: readonly string[];
  readonly chunkSize?: number;
  readonly noSwitch?: boolean;
  readonly onProgress?: (p: RebuildProgress) => void;
}

export interface RebuildResult {
  readonly projections: readonly string[];
  readonly nextSchema: string;
  readonly oldSchema?: string;
  readonly elapsedMs: number;
}

export interface RatesImportResult {
  readonly importId: number;
  readonly days: number;
  readonly currencies: readonly string[];
  readonly ratesAdded: number;
  readonly ratesKnown: number;
  readonly ordersReconverted: number;
  readonly version: number;
}

export interface UnconvertedOrders {
  readonly account_id: string;
  readonly currency: string;
  readonly reporting_currency: string;
  readonly fx_status: 'unknown_currency' | 'no_rate' | 'pending';
  readonly orders: number;
  readonly first_order_date: Date;
  readonly last_order_date: Date;
}

/**
 * Loads the projector behind the port when a command runs: its module graph (codec, Kafka runner,
 * COPY streams) is not worth loading for every other command, nor for `--help`.
 */
export function loadProjector(): Promise<ProjectorPort> {
  const specifier = '@holdfast/projector';
  return import(/* @vite-ignore */ specifier) as Promise<ProjectorPort>;
}
