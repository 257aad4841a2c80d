/** Where the server reports what it does and what went wrong; every layer takes it (`startServer({ logger })`). */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
