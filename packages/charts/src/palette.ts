/**
 * Okabe–Ito: eight colours told apart with every common colour-vision deficiency. Series take them in
 * order unless a chart names its own.
 */
export const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#D55E00',
  '#CC79A7',
  '#56B4E9',
  '#7F6A00',
  '#000000',
] as const;

export const seriesColor = (i: number, own?: string): string => own ?? PALETTE[i % PALETTE.length]!;

/**
 * A sequential colour for `t` in [0, 1]: from a pale blue (#eff3ff) to a dark one (#08306b), linear in
 * sRGB, so a heat map reads darker as the value grows. Out-of-range values are clamped.
 */
export function sequentialColor(t: number): string {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  const from = [0xef, 0xf3, 0xff];
  const to = [0x08, 0x30, 0x6b];
  return `#${from
    .map((f, i) =>
      Math.round(f + (to[i]! - f) * x)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** Black or white, whichever contrasts more with the background `hex` (WCAG relative luminance). */
export function textColorOn(hex: string): '#000000' | '#ffffff' {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  // Contrast with black is (l + 0.05) / 0.05, with white 1.05 / (l + 0.05): equal at l ≈ 0.179.
  return l > 0.179 ? '#000000' : '#ffffff';
}
