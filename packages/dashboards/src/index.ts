export { CHURN_BINS, churnBins, MONEY_EDGES, moneyDistribution } from './bins.js';
export { dayOf, formatCount, formatMoney, formatMoneyTick, formatShare, monthName } from './format.js';
export { DASHBOARD_TITLES, renderDashboard } from './render.js';
export * from './reports.js';
export { billedAmount, whyBilled, type LiftFigures } from './why-billed.js';
export { cohortsFrom, funnelRows, lifecyclePoints, modelFitFrom, monthIndex, monthLabel } from './shape.js';
