const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * COPY takes no parameters, so literals go in: only a checked UUID (lower-cased) and an ISO instant.
 * The recompute's reading itself is `stageAccount` (stream-account.ts).
 */
export function checkedAccountId(accountId: string): string {
  if (!UUID.test(accountId)) throw new Error(`invalid account id "${accountId}"`);
  return accountId.toLowerCase();
}
