/** This package's version, as `package.json` has it (a test keeps the two equal): usage reports name it (`docs/protocol.md` §13.2). */
export const FLAGWIRE_VERSION = '0.1.0';
