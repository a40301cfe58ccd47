/**
 * The campaign tables (their DDL is the recompute's migrations), the campaign settings and lift-report
 * queries, the audience typing SQL.
 */
export {
  type AttributionsTable,
  CAMPAIGN_TABLE_COLUMNS,
  type CampaignAccountSettingsTable,
  type CampaignAssignmentsTable,
  type CampaignRunsTable,
  type CampaignTables,
  type CampaignTypeSettingsTable,
  type LiftReportsTable,
} from './campaign-tables.js';
export {
  type CampaignTypeSetting,
  type LiftReportListing,
  listLiftReports,
  readCampaignSettings,
  setCampaignTypeEnabled,
  setFrequencyCap,
  type StoredCampaignSettings,
} from './campaign-settings.js';
export { AUDIENCE_TYPING_CTES, type AudienceRules, DEFAULT_AUDIENCE_RULES } from './audience-typing.js';
