import type { CustomerSummary } from './summary.js';

/** The numbers of a {@link CustomerSummary} that scoring reads (one row of the summary columns). */
export type SummaryNumbers = Pick<
  CustomerSummary,
  'frequency' | 'recency' | 'T' | 'monetaryValue' | 'totalRevenue' | 'transactions'
>;

/** Summary numbers of zeros: the one object a hot loop overwrites row after row. */
export function zeroSummaryNumbers(): SummaryNumbers {
  return { frequency: 0, recency: 0, T: 0, monetaryValue: 0, totalRevenue: 0, transactions: 0 };
}
