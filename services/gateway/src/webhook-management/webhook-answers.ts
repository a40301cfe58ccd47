import type { DeliveryListing } from '@holdfast/webhook-deliveries';

/** A subscription as /v1/webhooks answers it (never its secret, but when it is created or rotated). */
export interface WebhookAnswer {
  readonly id: string;
  readonly url: string;
  readonly event_types: string[];
  readonly created_at: string;
}

/** A subscription row as the answer shows it. */
export function webhookAnswer(s: {
  id: string;
  url: string;
  event_types: string[];
  created_at: Date;
}): WebhookAnswer {
  return { id: s.id, url: s.url, event_types: s.event_types, created_at: s.created_at.toISOString() };
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/**
 * A delivery with its attempt log, as GET /v1/webhooks/{id}/deliveries answers it: the operator's
 * listing (`holdfast webhooks deliveries`) in JSON, the body left out (the receiver has it).
 */
export function deliveryAnswer(d: DeliveryListing) {
  return {
    delivery_id: d.delivery_id,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    created_at: d.created_at.toISOString(),
    delivered_at: iso(d.delivered_at),
    next_attempt_at: iso(d.next_attempt_at),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    attempt_log: d.attempt_log.map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attempted_at.toISOString(),
      succeeded: a.succeeded,
      status_code: a.status_code,
      error: a.error,
      duration_ms: a.duration_ms,
    })),
  };
}
