// The kysely types of the tables the recompute's campaign migrations create (schema `analytics`:
// assignments, runs, attributions, lift reports, settings), as `pg` returns them through `createPool`
// (numeric as numbers, timestamptz as Dates). Here, not beside the DDL in services/recompute, because the
// CLI reads and writes the settings and lift reports too (./campaign-settings.ts). Each has a column list
// (`satisfies` its keys) that the recompute's migrations/tables.int.test.ts holds to the migrated tables.
import type { ColumnType, Generated } from 'kysely';
import { rowColumns } from '@holdfast/postgres';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** analytics.campaign_assignments: one customer's place in one campaign run (treated or held out). */
export interface CampaignAssignmentsTable {
  assignment_id: string;
  account_id: string;
  run_id: string;
  task_id: string | null;
  campaign_type: string;
  customer_id: string;
  arm: 'treated' | 'holdout';
  channel: 'email' | 'sms' | null;
  provider: string | null;
  status:
    | 'planned'
    | 'sending'
    | 'sent'
    | 'possibly_sent'
    | 'failed'
    | 'held_out'
    | 'sandbox_simulated'
    | 'capped'
    | 'no_consent'
    | 'suppressed'
    | 'disabled'
    | 'merchant_sent';
  tracking_id: string | null;
  url: string | null;
  assigned_at: Timestamp;
  sent_at: Timestamp | null;
  send_attempts: Generated<number>;
  provider_status: number | null;
  last_error: string | null;
  event_appended_at: Timestamp | null;
  last_failure_kind: 'retriable' | 'permanent' | null;
  claimed_at: Timestamp | null;
  /** The merchant's send claim a `merchant_sent` or its `held_out` row came from (POST /v1/sends). */
  send_id: string | null;
}

/** analytics.campaign_runs: one campaign step of an account, with its counters. */
export interface CampaignRunsTable {
  run_id: string;
  account_id: string;
  task_id: string | null;
  status: 'running' | 'done' | 'failed' | 'skipped';
  reason: string | null;
  started_at: Timestamp;
  finished_at: Timestamp | null;
  planned: Generated<number>;
  held_out: Generated<number>;
  sent: Generated<number>;
  send_failed: Generated<number>;
  events_appended: Generated<number>;
  attributions: Generated<number>;
  lift_reports: Generated<number>;
  sends_enabled: boolean | null;
  trigger: string | null;
  sandbox_simulated: Generated<number>;
  capped: Generated<number>;
  no_consent: Generated<number>;
  suppressed: Generated<number>;
  disabled: Generated<number>;
  possibly_sent: Generated<number>;
}

/** analytics.attributions: an order attributed to a send. */
export interface AttributionsTable {
  account_id: string;
  order_id: string;
  tracking_id: string;
  campaign_type: string;
  channel: string;
  method: 'exact' | 'last_touch';
  order_date: Timestamp;
  net_revenue: number;
  attributed_at: Timestamp;
}

/** analytics.lift_reports: one campaign type's lift over one period. */
export interface LiftReportsTable {
  account_id: string;
  campaign_type: string;
  period_start: Timestamp;
  period_end: Timestamp;
  treated_customers: number;
  holdout_customers: number;
  treated_revenue_per_customer: number | null;
  holdout_revenue_per_customer: number | null;
  lift: number | null;
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  significant: boolean;
  incremental_revenue: number | null;
  billable_revenue: number;
  mde: number | null;
  computed_at: Timestamp;
  test: string | null;
  p_value_greater: number | null;
  settlement_status: Generated<'provisional' | 'final'>;
  settles_at: Timestamp | null;
  settled_at: Timestamp | null;
  final_billable_revenue: number | null;
}

/** analytics.campaign_type_settings: a campaign type switched on or off for an account. */
export interface CampaignTypeSettingsTable {
  account_id: string;
  campaign_type: string;
  enabled: boolean;
  changed_at: Timestamp;
}

/** analytics.campaign_account_settings: an account's frequency cap. */
export interface CampaignAccountSettingsTable {
  account_id: string;
  frequency_cap_messages: number;
  frequency_cap_days: number;
  changed_at: Timestamp;
}

/** The tables of the campaign migrations (`migrateCampaigns`). */
export interface CampaignTables {
  'analytics.campaign_assignments': CampaignAssignmentsTable;
  'analytics.campaign_runs': CampaignRunsTable;
  'analytics.attributions': AttributionsTable;
  'analytics.lift_reports': LiftReportsTable;
  'analytics.campaign_type_settings': CampaignTypeSettingsTable;
  'analytics.campaign_account_settings': CampaignAccountSettingsTable;
}

/** Every column of each table, in table order. */
export const CAMPAIGN_TABLE_COLUMNS = {
  'analytics.campaign_assignments': rowColumns<CampaignAssignmentsTable>()({
    assignment_id: true,
    account_id: true,
    run_id: true,
    task_id: true,
    campaign_type: true,
    customer_id: true,
    arm: true,
    channel: true,
    provider: true,
    status: true,
    tracking_id: true,
    url: true,
    assigned_at: true,
    sent_at: true,
    send_attempts: true,
    provider_status: true,
    last_error: true,
    event_appended_at: true,
    last_failure_kind: true,
    claimed_at: true,
    send_id: true,
  }),
  'analytics.campaign_runs': rowColumns<CampaignRunsTable>()({
    run_id: true,
    account_id: true,
    task_id: true,
    status: true,
    reason: true,
    started_at: true,
    finished_at: true,
    planned: true,
    held_out: true,
    sent: true,
    send_failed: true,
    events_appended: true,
    attributions: true,
    lift_reports: true,
    sends_enabled: true,
    trigger: true,
    sandbox_simulated: true,
    capped: true,
    no_consent: true,
    suppressed: true,
    disabled: true,
    possibly_sent: true,
  }),
  'analytics.attributions': rowColumns<AttributionsTable>()({
    account_id: true,
    order_id: true,
    tracking_id: true,
    campaign_type: true,
    channel: true,
    method: true,
    order_date: true,
    net_revenue: true,
    attributed_at: true,
  }),
  'analytics.lift_reports': rowColumns<LiftReportsTable>()({
    account_id: true,
    campaign_type: true,
    period_start: true,
    period_end: true,
    treated_customers: true,
    holdout_customers: true,
    treated_revenue_per_customer: true,
    holdout_revenue_per_customer: true,
    lift: true,
    ci_low: true,
    ci_high: true,
    p_value: true,
    significant: true,
    incremental_revenue: true,
    billable_revenue: true,
    mde: true,
    computed_at: true,
    test: true,
    p_value_greater: true,
    settlement_status: true,
    settles_at: true,
    settled_at: true,
    final_billable_revenue: true,
  }),
  'analytics.campaign_type_settings': rowColumns<CampaignTypeSettingsTable>()({
    account_id: true,
    campaign_type: true,
    enabled: true,
    changed_at: true,
  }),
  'analytics.campaign_account_settings': rowColumns<CampaignAccountSettingsTable>()({
    account_id: true,
    frequency_cap_messages: true,
    frequency_cap_days: true,
    changed_at: true,
  }),
} satisfies Record<keyof CampaignTables, readonly string[]>;
