/** The storage's own errors; the HTTP front maps them to answers (`docs/protocol.md` §4). */

/** The store cannot be reached now (a database away): the request may be retried shortly. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  readonly code = 'UNAVAILABLE';

  constructor(message = 'the database is unavailable; retry shortly', options?: ErrorOptions) {
    super(message, options);
  }
}

/** The storage was closed: nothing more is committed (a programming error, not a retry). */
export class StorageClosedError extends Error {
  override readonly name = 'StorageClosedError';
  readonly code = 'CLOSED';

  constructor() {
    super('store: closed');
  }
}

/**
 * A change the store cannot write (its JSON cannot be made: too large a string, too deep a
 * value). Refused before anything reaches memory or is acknowledged; the HTTP front answers
 * `400 VALIDATION_ERROR` (`docs/protocol.md` §7.3).
 */
export class StorageRefusedError extends Error {
  override readonly name = 'StorageRefusedError';
  readonly code = 'REFUSED';
}

/** `ops` as the JSON a store writes; throws `StorageRefusedError` when it cannot be made. */
export function entryJson(ops: unknown): string {
  try {
    return JSON.stringify(ops);
  } catch (error) {
    throw new StorageRefusedError(
      `the change cannot be stored: its JSON cannot be written (${(error as Error).message})`,
      { cause: error },
    );
  }
}
