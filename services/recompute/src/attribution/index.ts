/**
 * Attribution and lift: which orders campaigns brought (exact by utm_content, else 7-day last touch),
 * and what each campaign type added against the universal holdout, with the billable part.
 */
export { recomputeAttributions, type AttributionInput } from './attribute-orders.js';
export { computeLiftReports, type LiftReportInput } from './lift-reports.js';
export {
  DEFAULT_SETTLEMENT_DAYS,
  liftFigures,
  monthPeriods,
  settlingPeriods,
  type LiftFigures,
  type Period,
} from './lift-report.js';
