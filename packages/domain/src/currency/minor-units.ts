// ISO 4217 minor units of the currencies that do not have two. Every other code has two (the
// ISO default, and the case of every ECB reference currency except JPY, KRW and ISK).
const NOT_TWO: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/**
 * Decimal places of a currency's minor unit (ISO 4217): amounts converted into it are rounded to
 * these. 2 for any code not listed otherwise (including unknown codes).
 *
 * @example
 * minorUnits('JPY'); // 0
 * minorUnits('USD'); // 2
 */
export function minorUnits(currency: string): number {
  return NOT_TWO[currency] ?? 2;
}
