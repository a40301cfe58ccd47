/**
 * Which recompute triggers may send campaign messages. A sync requested through the API
 * (`POST /ingest/sync`, trigger `api`) recomputes scores, attribution and lift but never sends: a
 * client's data push must not message customers. The nightly run (`nightly`) and an operator's explicit
 * command (`cli`: `holdfast campaigns run`, `holdfast sync`) send.
 */
export type RecomputeTrigger = 'api' | 'nightly' | 'cli';

/** What the account's settings say about sending at all. */
export interface TriggerSettings {
  /** Campaign types enabled for the account (none by default). */
  readonly enabledTypes: ReadonlySet<string>;
}

/**
 * Whether a recompute with this trigger runs the send part of the campaign step; `settings` omitted
 * answers from the trigger alone (the step then checks the enabled types itself).
 *
 * @example
 * sendsOnTrigger('api'); // false
 * sendsOnTrigger('nightly', { enabledTypes: new Set() }); // false: nothing enabled
 */
export function sendsOnTrigger(trigger: string, settings?: TriggerSettings): boolean {
  if (trigger !== 'nightly' && trigger !== 'cli') return false;
  return settings === undefined || settings.enabledTypes.size > 0;
}
