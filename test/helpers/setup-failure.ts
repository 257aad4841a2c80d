/**
 * The error a vitest global setup throws when what the tests need cannot be had: vitest then runs
 * no test and exits non-zero, printing this message once (as an "Unhandled Error"). Its stack is
 * only the message, and it carries no `cause` (vitest would print the same message again with its
 * stack): the set-up's call stack inside vitest says nothing to the reader.
 */
export function setupFailure(what: string, cause: unknown, fix?: string): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const error = new Error(`${what}, so no test ran:\n${reason}${fix ? `\nFix: ${fix}` : ''}`);
  error.stack = `Error: ${error.message}`;
  return error;
}
