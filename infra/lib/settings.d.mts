export function loadSettings(env?: Record<string, string | undefined>): unknown;
export const rawSettings: Record<string, unknown>;
