/** What an inbound SMS asks for, by the carriers' keyword conventions. */
export type SmsKeyword = 'opt_out' | 'opt_in' | 'help';

// CTIA / US carrier conventions, as the major SMS APIs honour them (Twilio's default opt-out list).
const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
const OPT_IN = new Set(['START', 'YES', 'UNSTOP']);
const HELP = new Set(['HELP', 'INFO']);

/**
 * Recognises a keyword reply: the whole message is the keyword, in any case, with surrounding spaces
 * and trailing punctuation ignored. A sentence that merely contains the word ("please stop by
 * tomorrow") is no keyword, as carriers treat it.
 *
 * @example
 * smsKeyword(' Stop. ');        // 'opt_out'
 * smsKeyword('STOPALL');        // 'opt_out'
 * smsKeyword('stop by later');  // null
 */
export function smsKeyword(body: string): SmsKeyword | null {
  const word = body
    .trim()
    .replace(/[.!?\s]+$/u, '')
    .toUpperCase();
  if (OPT_OUT.has(word)) return 'opt_out';
  if (OPT_IN.has(word)) return 'opt_in';
  if (HELP.has(word)) return 'help';
  return null;
}
