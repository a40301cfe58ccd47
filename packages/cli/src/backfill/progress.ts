/** The numbers a progress display shows. */
export interface ProgressSnapshot {
  /** Rows done: acknowledged, reported as errors, or skipped because an earlier run did them. */
  readonly rows: number;
  readonly accepted: number;
  readonly dropped: number;
  /** Rows parsed so far (ahead of `rows` by what is batched or in flight). */
  readonly rowsRead: number;
  readonly bytesRead: number;
  readonly size: number | null;
  readonly elapsedMs: number;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/**
 * One progress line: rows, rows/s, percentage and ETA (when the file size is known, from bytes read),
 * accepted and dropped.
 *
 * @example
 * progressLine({ rows: 5000, rowsRead: 5000, accepted: 4990, dropped: 10, bytesRead: 50, size: 100, elapsedMs: 2000 });
 * // '5,000 rows  2,500 rows/s  50.0%  ETA 0:02  accepted 4,990  dropped 10'
 */
export function progressLine(s: ProgressSnapshot): string {
  const seconds = s.elapsedMs / 1000;
  const rate = seconds > 0 ? s.rows / seconds : 0;
  const parts = [`${fmt(s.rows)} rows`, `${fmt(rate)} rows/s`];
  const share = doneShare(s);
  if (share !== null) {
    const eta = share > 0 ? seconds * ((1 - share) / share) : Infinity;
    parts.push(`${(share * 100).toFixed(1)}%`, `ETA ${duration(eta)}`);
  }
  parts.push(`accepted ${fmt(s.accepted)}`, `dropped ${fmt(s.dropped)}`);
  return parts.join('  ');
}

/**
 * The share of the file done. Parsing runs ahead of acknowledgements (batches queued and in flight), so
 * bytes read are scaled by the done fraction of the rows read.
 */
function doneShare(s: ProgressSnapshot): number | null {
  if (!s.size) return null;
  const doneOfRead = s.rowsRead > 0 ? Math.min(1, s.rows / s.rowsRead) : 0;
  return Math.min(1, (s.bytesRead * doneOfRead) / s.size);
}

function bar(share: number, width = 24): string {
  const full = Math.round(share * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}]`;
}

/**
 * Shows progress on stderr: on a terminal one line redrawn in place (with a bar when the size is known),
 * otherwise a plain line every `intervalMs` so logs stay readable.
 */
export class Progress {
  private timer: NodeJS.Timeout | undefined;
  private drawn = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly tty: boolean,
    private readonly snapshot: () => ProgressSnapshot,
    private readonly intervalMs = tty ? 250 : 5000,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.render(), this.intervalMs);
    this.timer.unref();
  }

  private render(): void {
    const s = this.snapshot();
    const line = progressLine(s);
    if (this.tty) {
      const share = doneShare(s);
      const prefix = share === null ? '' : `${bar(share)} `;
      this.write(`\r${prefix}${line}\x1b[K`);
      this.drawn = true;
    } else {
      this.write(`backfill: ${line}\n`);
    }
  }

  /** Prints a message without tearing the redrawn line. */
  note(message: string): void {
    if (this.tty && this.drawn) this.write('\r\x1b[K');
    this.write(`${message}\n`);
    this.drawn = false;
  }

  stop(): void {
    clearInterval(this.timer);
    this.render();
    if (this.tty) this.write('\n');
  }
}
