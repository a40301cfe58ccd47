// Test support: an Appender that keeps what it is given (the e2e test uses the real Kafka one).
import type { AnyEvent, EventCodec } from '@holdfast/contracts';
import type { Appender, OutgoingRecord } from '@holdfast/kafka';

export class CaptureAppender implements Appender {
  readonly records: OutgoingRecord[] = [];
  failNext = false;

  append(records: readonly OutgoingRecord[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('kafka unavailable'));
    }
    this.records.push(...records);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  async decoded(codec: Pick<EventCodec, 'decode'>): Promise<AnyEvent[]> {
    return Promise.all(this.records.map((r) => codec.decode(r.value)));
  }
}
