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
