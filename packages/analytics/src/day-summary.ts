import type { SummaryNumbers } from './summary-numbers.js';

/**
 * One customer's RFM summary from their purchase days (local calendar days, see @holdfast/local-time)
 * and net amounts, with the semantics of {@link CustomerDays} (which does the same for a whole account
 * at once): orders after `endDay` do not count, same-day orders are one transaction, x = purchase
 * days − 1, t_x and T in `unitDays` units with T measured to `endDay`, monetary value = mean of the
 * repeat days' totals (the first day excluded). A streamed recompute calls it customer by customer,
 * `endDay` being the as-of day in that customer's zone.
 *
 * Sorts the first `n` entries of `days` and `amounts` by day, in place and stably (the sums then run
 * in the order CustomerDays sums them, so the numbers are the same to the bit). Writes into `out` and
 * returns true, or returns false when no order counts.
 *
 * @example
 * const out = zeroSummaryNumbers();
 * summarizeDays(Int32Array.of(20_007, 20_000), Float64Array.of(5, 10), 2, 20_010, 7, out); // true
 * out; // { frequency: 1, recency: 1, T: 10/7, monetaryValue: 5, totalRevenue: 15, transactions: 2 }
 */
export function summarizeDays(
  days: Int32Array,
  amounts: Float64Array,
  n: number,
  endDay: number,
  unitDays: number,
  out: SummaryNumbers,
): boolean {
  // Insertion sort: a customer's orders are few and usually arrive in date order already.
  for (let i = 1; i < n; i++) {
    const d = days[i]!;
    const a = amounts[i]!;
    let j = i - 1;
    while (j >= 0 && days[j]! > d) {
      days[j + 1] = days[j]!;
      amounts[j + 1] = amounts[j]!;
      j--;
    }
    days[j + 1] = d;
    amounts[j + 1] = a;
  }
  if (n === 0 || days[0]! > endDay) return false;
  const first = days[0]!;
  let day = first;
  let purchaseDays = 1;
  let firstAmount = 0;
  let total = 0;
  for (let i = 0; i < n && days[i]! <= endDay; i++) {
    const d = days[i]!;
    if (d !== day) {
      day = d;
      purchaseDays++;
    }
    if (d === first) firstAmount += amounts[i]!;
    total += amounts[i]!;
  }
  const frequency = purchaseDays - 1;
  out.frequency = frequency;
  out.recency = (day - first) / unitDays;
  out.T = (endDay - first) / unitDays;
  out.monetaryValue = frequency > 0 ? (total - firstAmount) / frequency : 0;
  out.totalRevenue = total;
  out.transactions = purchaseDays;
  return true;
}
