/**
 * @holdfast/analytics: pure customer analytics (no I/O, no clock, no randomness). RFM summaries,
 * BG/NBD and Gamma-Gamma fitted by maximum likelihood, a heuristic for small accounts, lifecycle
 * scoring, the universal holdout and lift statistics. Formulas and their reasoning: docs/analytics.md.
 */
export { addUnits, daysPerUnit, toEpochMs, toUtcDay, unitsPerYear, utcDayToDate } from './time.js';
export type { Instant, TimeUnit } from './time.js';
export { summarizeCustomer, summarizeOrders, summaryColumns } from './summary.js';
export { CustomerDays, netOrderAmount } from './customer-days.js';
export { summarizeDays } from './day-summary.js';
export { zeroSummaryNumbers } from './summary-numbers.js';
export type { SummaryNumbers } from './summary-numbers.js';
export type { CustomerSummary, OrderInput, SummaryColumns, SummaryOptions } from './summary.js';
export { GroupIndex } from './group-index.js';
export { groupRfm } from './rfm-groups.js';
export type { RfmGroups, RfmRow } from './rfm-groups.js';
export {
  bgnbdCustomerLogLikelihood,
  bgnbdLogLikelihood,
  bgnbdLogLikelihoodGradient,
  fitBgNbd,
} from './bgnbd.js';
export type { BgNbdFit, BgNbdFitOptions, BgNbdParams } from './bgnbd.js';
export {
  bgnbdConditionalExpectedPurchases,
  bgnbdExpectedGap,
  bgnbdExpectedPurchases,
  bgnbdMedianTimeToNextPurchase,
  bgnbdProbabilityAlive,
  meanPurchasesWhileAlive,
  meanPurchasesWhileAliveByQuadrature,
} from './bgnbd-predict.js';
export {
  fitParetoNbd,
  groupTriplets,
  paretoNbdConditionalExpectedPurchases,
  paretoNbdExpectedPurchases,
  paretoNbdLogLikelihood,
  paretoNbdMeanPurchasesWhileAlive,
  paretoNbdProbabilityAlive,
  paretoNbdProbabilityNoPurchase,
  paretoNbdStart,
} from './pareto-nbd.js';
export type {
  ParetoNbdFailure,
  ParetoNbdFit,
  ParetoNbdFitOptions,
  ParetoNbdParams,
  TripletGroups,
  WeightedTriplet,
} from './pareto-nbd.js';
export { simulateBgNbd, simulateParetoNbd } from './pareto-nbd-simulation.js';
export type { BgNbdSimulation, ParetoNbdSimulation, SimulatedHistory } from './pareto-nbd-simulation.js';
export {
  cholesky,
  intervalDraws,
  intervalOf,
  logCovarianceAt,
  logParameterCovariance,
  populationShare,
  purchaseIntervals,
  valueBounds,
} from './intervals.js';
export type {
  FittedPurchaseModel,
  IntervalDraws,
  IntervalOptions,
  PurchaseInterval,
  SpendShape,
} from './intervals.js';
export { variates } from './random-variates.js';
export type { Variates } from './random-variates.js';
export {
  fitGammaGamma,
  fitGammaGammaColumns,
  gammaGammaExpectedSpend,
  gammaGammaLogLikelihood,
  gammaGammaLogLikelihoodGradient,
} from './gamma-gamma.js';
export type { GammaGammaFit, GammaGammaParams, SpendRow } from './gamma-gamma.js';
export { bgnbdGammaGammaClv, discountedPurchases } from './clv.js';
export type { ClvOptions } from './clv.js';
export {
  accountMedianGap,
  accountMedianGapOfColumns,
  accountMedianGapOfGroups,
  heuristicCustomer,
  heuristicExpectedPurchases,
  heuristicMedianTimeToNextPurchase,
  heuristicProbabilityAlive,
} from './heuristic.js';
export type { HeuristicCustomer } from './heuristic.js';
export { LIFECYCLE_STATES, OVERDUE_GAPS, churnRisk, lifecycleState } from './lifecycle.js';
export type { LifecycleInput, LifecycleState } from './lifecycle.js';
export {
  DEFAULT_MIN_REPEAT_CUSTOMERS,
  accountStatistics,
  fitAccount,
  scoreCustomers,
  scoreSummaryColumns,
  scoreWithFit,
  scoringCache,
} from './score.js';
export type {
  AccountFit,
  AccountStatistics,
  ScoringCache,
  CustomerScore,
  ScoreColumns,
  ScoreColumnsResult,
  ScoreOptions,
  ScoreParams,
  ScoreResult,
} from './score.js';
export { HOLDOUT_SHARE, fnv1a64, holdoutBucket, isHoldout } from './holdout.js';
export { liftFromMoments, liftStatistics } from './lift.js';
export { DEFAULT_SETTLEMENT_DAYS, decideBilling } from './billing.js';
export type { BillingDecision, BillingFacts } from './billing.js';
export type { LiftOptions, LiftResult, LiftTest } from './lift.js';
export { permutationInterval } from './permutation-test.js';
export type { PermutationIntervalResult, PermutationOptions } from './permutation-test.js';
export {
  differenceSkewness,
  hallTransform,
  inverseHallTransform,
  sampleMoments,
} from './skew-corrected-t.js';
export type { SampleMoments } from './skew-corrected-t.js';
export { mulberry32 } from './prng.js';
export { REVENUE_MODELS, expectedRevenue, runLiftSimulation } from './lift-simulation.js';
export {
  BGNBD_TRUTH,
  GAMMA_GAMMA_TRUTH,
  simulateBgNbdCustomers,
  simulateRepeatBuyers,
  worstRelativeError,
} from './customer-simulation.js';
export type { LiftScenario, LiftSimulationResult, RevenueModel } from './lift-simulation.js';
export { studentTCdf, studentTPdf, studentTQuantile } from './student-t.js';
export {
  digamma,
  logBeta,
  logGamma,
  logSumExp,
  median,
  regularizedIncompleteBeta,
} from './special-functions.js';
export { hyp2f1 } from './hypergeometric.js';
export { integrate } from './quadrature.js';
export { nelderMead } from './nelder-mead.js';
export { bfgs } from './bfgs.js';
export type { BfgsOptions, BfgsResult, ValueAndGradient } from './bfgs.js';
export { maximizeInLogSpace } from './mle.js';
export type { LogSpaceFit } from './mle.js';
export type { NelderMeadOptions, NelderMeadResult } from './nelder-mead.js';
export { OrderCsvError, parseOrderCsv } from './order-csv.js';
export type { OrderRow } from './order-csv.js';
export {
  MAX_HOLDOUT_DAYS,
  MIN_HOLDOUT_DAYS,
  HoldoutGroups,
  groupHoldout,
  holdoutDays,
  splitCalibrationHoldout,
} from './holdout-split.js';
export type { HoldoutHistories } from './holdout-split.js';
export { expectedCalibrationError, holdoutDiagnostics, reliabilityTable } from './holdout-diagnostics.js';
export type {
  History,
  HoldoutDiagnostics,
  PurchasePredictor,
  ReliabilityBin,
} from './holdout-diagnostics.js';
export {
  SIMILAR_ERROR,
  bgnbdPredictor,
  checkOnHoldout,
  chooseModel,
  paretoNbdPredictor,
} from './model-choice.js';
export type { Candidate, ChoiceReason, HoldoutCheck, PurchaseModel } from './model-choice.js';
export { fitFromOrderRows } from './fit-from-rows.js';
export type { OrderRowsFit } from './fit-from-rows.js';
export { intervalCoverage } from './interval-coverage.js';
export type { CoverageResult, CoverageScenario } from './interval-coverage.js';
export { IntervalScorer, scoreIntervals } from './score-intervals.js';
export type { IntervalColumns } from './score-intervals.js';
