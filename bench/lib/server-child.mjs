/**
 * A flagwire reference server in a child process, driven over IPC by the benchmarks with the
 * commands of `server-commands.mjs` (start, memory, cpu, close).
 */
import { serveCommands } from './child.mjs';
import { serverCommands } from './server-commands.mjs';

serveCommands(serverCommands);
