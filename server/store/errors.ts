/** The storage's own errors; the HTTP front maps them to answers (`docs/protocol.md` §4). */

/** The store cannot be reached now (a database away): the request may be retried shortly. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  readonly code = 'UNAVAILABLE';

  constructor(message = 'the database is unavailable; retry shortly', options?: ErrorOptions) {
    super(message, options);
  }
}
