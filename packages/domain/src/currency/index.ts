export { currencyCode } from './currency-code.js';
export { conversionOn, convertAmount, RATE_PLACES } from './convert.js';
export type { Conversion, ConversionStatus } from './convert.js';
export { parseEcbCsv } from './ecb-csv.js';
export type { EcbCsvIssue, ParsedEcbCsv } from './ecb-csv.js';
export { minorUnits } from './minor-units.js';
export { dayText, epochDay, RATE_LOOKBACK_DAYS, ReferenceRates } from './reference-rates.js';
export type { RateOnDay, ReferenceRate } from './reference-rates.js';
