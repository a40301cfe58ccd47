const MAX_TERMS = 200_000;

/**
 * Gaussian hypergeometric function ₂F₁(a, b; c; z) for 0 ≤ z < 1, the case the BG/NBD conditional
 * expectation needs. The power series Σ (a)_k (b)_k / ((c)_k k!) z^k is summed term by term (ratio
 * recurrence, so no factorial overflows) until the tail bound |term|·ρ/(1−ρ), with ρ the larger of the next
 * term ratio and z, falls below 1e-15 of the sum. Its terms behave like k^(a+b−c−1) z^k, so when c < a + b and
 * z > 0.5 Euler's transformation ₂F₁(a,b;c;z) = (1−z)^(c−a−b) ₂F₁(c−a, c−b; c; z) is applied first:
 * the transformed terms decay like k^(c−a−b−1) z^k, i.e. much faster. Returns NaN when c is a
 * non-positive integer (pole) or the series has not converged after 200,000 terms (z very near 1);
 * callers then use an integral representation instead.
 */
export function hyp2f1(a: number, b: number, c: number, z: number): number {
  if (!(z >= 0 && z < 1)) return NaN;
  if (z === 0) return 1;
  if (z > 0.5 && c < a + b) {
    const inner = series(c - a, c - b, c, z);
    return Math.pow(1 - z, c - a - b) * inner;
  }
  return series(a, b, c, z);
}

function series(a: number, b: number, c: number, z: number): number {
  let term = 1;
  let sum = 1;
  for (let k = 0; k < MAX_TERMS; k++) {
    const denominator = (c + k) * (k + 1);
    if (denominator === 0) return NaN;
    const ratio = ((a + k) * (b + k) * z) / denominator;
    term *= ratio;
    sum += term;
    if (term === 0) return sum; // a or b a non-positive integer: the series terminates
    // Later ratios tend to z, so bound the tail with the larger of the next ratio and z.
    const rho = Math.max(z, Math.abs(((a + k + 1) * (b + k + 1) * z) / ((c + k + 1) * (k + 2))));
    if (rho < 1 && (Math.abs(term) * rho) / (1 - rho) <= 1e-15 * Math.abs(sum)) return sum;
  }
  return NaN;
}
