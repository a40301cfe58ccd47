// The one seeded generator of tests and benches: analytics' mulberry32 (production draws its
// simulations from it), so a seed gives the same run everywhere.
export { mulberry32 } from '@holdfast/analytics';
