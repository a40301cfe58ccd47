/**
 * @holdfast/local-time: pure local-clock rules (no I/O, no clock). Which zone a customer's clock
 * follows (their US ZIP's, else the store's), the local calendar day of an instant and the local
 * calendar months, from Node's Intl. Reasoning and the dataset: docs/analytics.md "Time zones".
 */
export { dateOfDay, dayOfDate, isKnownZone, localDayOf, startOfLocalDay, zoneOffsetMs } from './local-day.js';
export { DEFAULT_STORE_ZONE, storeZoneOf, usZipZone, zoneOfCustomer } from './customer-zone.js';
export { localMonths } from './local-months.js';
export type { Period } from './local-months.js';
