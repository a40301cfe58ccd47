// The kysely types of the tables the recompute's migrations create (schemas `recompute` and
// `analytics`: the work queue and the scores), as `pg` returns them through `createPool` (int8 and
// numeric as numbers, timestamptz as Dates, jsonb parsed). Hand-written beside the DDL; each has a
// column list (`satisfies` its keys) that tables.int.test.ts holds to the migrated tables.
import type { ColumnType, Generated } from 'kysely';
import type { LogPosition } from '@holdfast/contracts';
import { rowColumns } from '@holdfast/postgres';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamptz with a default (`DefaultTimestamp` would nest two ColumnTypes). */
type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** jsonb: written as its JSON text, read parsed. */
type Json<T> = ColumnType<T, string, string>;

/** recompute.sync_work: the task workers' queue (sync-task-store.ts). */
export interface SyncWorkTable {
  task_id: string;
  account_id: string;
  trigger: string;
  requested_at: Timestamp;
  barrier: ColumnType<LogPosition[] | null, string | null, string | null>;
  recorded_at: DefaultTimestamp;
  not_before: DefaultTimestamp;
  lease_owner: string | null;
  lease_until: Timestamp | null;
  claims: Generated<number>;
  runs: Generated<number>;
  finished_at: Timestamp | null;
  transient_failures: Generated<number>;
}

/**
 * projection_checkpoints (`checkpointTableDdl` of @holdfast/postgres): the sync consumer's in schema
 * `recompute`, the projector's in every read-model schema.
 */
export interface ProjectionCheckpointsTable {
  projection: string;
  topic: string;
  partition: number;
  last_offset: number;
  updated_at: DefaultTimestamp;
}

/** analytics.customer_scores: one row per scored customer (written by COPY, write-scores.ts). */
export interface CustomerScoresTable {
  account_id: string;
  customer_id: string;
  external_id: string | null;
  churn_risk: number;
  lifecycle_state: 'Stable' | 'Slowing' | 'Overdue' | 'Lapsed';
  p_alive: number;
  predicted_next_purchase_at: Timestamp | null;
  expected_purchases: number;
  expected_spend: number;
  realised_revenue: number;
  predicted_value: number;
  lifetime_value: number;
  is_holdout: boolean;
  model: 'bgnbd-gg' | 'pareto-nbd-gg' | 'heuristic';
  model_params: Json<Record<string, unknown>>;
  horizon_days: number;
  as_of: Timestamp;
  expected_purchases_low: number | null;
  expected_purchases_high: number | null;
  lifetime_value_low: number | null;
  lifetime_value_high: number | null;
}

/** analytics.model_fits: every fit, one row per recompute. */
export interface ModelFitsTable {
  account_id: string;
  as_of: Timestamp;
  model: 'bgnbd-gg' | 'pareto-nbd-gg' | 'heuristic';
  params: Json<Record<string, unknown>>;
  log_likelihood: number | null;
  customers: number;
  repeat_customers: number;
  converged: boolean;
  holdout_weeks: number | null;
  holdout_customers: number | null;
  holdout_choice: 'bgnbd' | 'pareto-nbd' | null;
  holdout_reason: string | null;
  holdout_aggregate_error: number | null;
  holdout_correlation: number | null;
  holdout_mae: number | null;
  calibration_error: number | null;
  reliability: ColumnType<unknown[] | null, string | null, string | null>;
  holdout_candidates: ColumnType<unknown[] | null, string | null, string | null>;
}

/** analytics.lifecycle_mix: customers per lifecycle state of every recompute (write-scores.ts). */
export interface LifecycleMixTable {
  account_id: string;
  as_of: Timestamp;
  lifecycle_state: 'Stable' | 'Slowing' | 'Overdue' | 'Lapsed';
  customers: number;
}

/** analytics.score_bins: the latest scores counted in the dashboards' bins (score-bins.ts). */
export interface ScoreBinsTable {
  account_id: string;
  as_of: Timestamp;
  measure: 'churn_risk' | 'realised_revenue' | 'lifetime_value';
  bucket: number;
  customers: number;
  total: number;
}

/** analytics.cohort_activity: active customers per monthly cohort and month since (cohort-activity.ts). */
export interface CohortActivityTable {
  account_id: string;
  cohort: number;
  months_since: number;
  customers: number;
  computed_at: Timestamp;
}

/** The tables of the recompute's own migrations (`migrateRecompute`, `migrateAnalytics`). */
export interface RecomputeTables {
  'recompute.sync_work': SyncWorkTable;
  'recompute.projection_checkpoints': ProjectionCheckpointsTable;
  /** The projector's checkpoints in the read-model schema (`withSchema`). */
  projection_checkpoints: ProjectionCheckpointsTable;
  'analytics.customer_scores': CustomerScoresTable;
  /** Rows written straight into customer_scores (seeds); the account's next recompute deletes them. */
  'analytics.customer_scores_default': CustomerScoresTable;
  'analytics.model_fits': ModelFitsTable;
  'analytics.lifecycle_mix': LifecycleMixTable;
  'analytics.score_bins': ScoreBinsTable;
  'analytics.cohort_activity': CohortActivityTable;
}

/** Every column of projection_checkpoints, in table order. */
const CHECKPOINT_COLUMNS = rowColumns<ProjectionCheckpointsTable>()({
  projection: true,
  topic: true,
  partition: true,
  last_offset: true,
  updated_at: true,
});

/** Every column of analytics.customer_scores (and of its partitions), in table order. */
const SCORE_COLUMNS = rowColumns<CustomerScoresTable>()({
  account_id: true,
  customer_id: true,
  external_id: true,
  churn_risk: true,
  lifecycle_state: true,
  p_alive: true,
  predicted_next_purchase_at: true,
  expected_purchases: true,
  expected_spend: true,
  realised_revenue: true,
  predicted_value: true,
  lifetime_value: true,
  is_holdout: true,
  model: true,
  model_params: true,
  horizon_days: true,
  as_of: true,
  expected_purchases_low: true,
  expected_purchases_high: true,
  lifetime_value_low: true,
  lifetime_value_high: true,
});

/** Every column of each table, in table order. */
export const RECOMPUTE_TABLE_COLUMNS = {
  'recompute.sync_work': rowColumns<SyncWorkTable>()({
    task_id: true,
    account_id: true,
    trigger: true,
    requested_at: true,
    barrier: true,
    recorded_at: true,
    not_before: true,
    lease_owner: true,
    lease_until: true,
    claims: true,
    runs: true,
    finished_at: true,
    transient_failures: true,
  }),
  'recompute.projection_checkpoints': CHECKPOINT_COLUMNS,
  'analytics.customer_scores': SCORE_COLUMNS,
  'analytics.customer_scores_default': SCORE_COLUMNS,
  'analytics.model_fits': rowColumns<ModelFitsTable>()({
    account_id: true,
    as_of: true,
    model: true,
    params: true,
    log_likelihood: true,
    customers: true,
    repeat_customers: true,
    converged: true,
    holdout_weeks: true,
    holdout_customers: true,
    holdout_choice: true,
    holdout_reason: true,
    holdout_aggregate_error: true,
    holdout_correlation: true,
    holdout_mae: true,
    calibration_error: true,
    reliability: true,
    holdout_candidates: true,
  }),
  'analytics.lifecycle_mix': rowColumns<LifecycleMixTable>()({
    account_id: true,
    as_of: true,
    lifecycle_state: true,
    customers: true,
  }),
  'analytics.score_bins': rowColumns<ScoreBinsTable>()({
    account_id: true,
    as_of: true,
    measure: true,
    bucket: true,
    customers: true,
    total: true,
  }),
  'analytics.cohort_activity': rowColumns<CohortActivityTable>()({
    account_id: true,
    cohort: true,
    months_since: true,
    customers: true,
    computed_at: true,
  }),
} satisfies Record<Exclude<keyof RecomputeTables, 'projection_checkpoints'>, readonly string[]>;
