// `npm start` (package.json: "exec node scripts/start.mjs", after prestart's ensure-build.mjs):
// runs the reference server, dist/cli.js, in this process, and stops it with npm.
//
// npm passes SIGINT and SIGTERM only to the shell it runs the script with (`sh -c`, or cmd.exe
// on Windows), never further. A shell that runs its command as a child rather than in its own
// process (dash, /bin/sh on Debian and Ubuntu, does) then either dies of the signal (SIGTERM),
// leaving the server serving with no one to stop it, or holds it until its child exits (SIGINT),
// which it never does. So:
// - the script starts with `exec`: a POSIX shell becomes this process and npm's signal reaches
//   the server's own handlers (server/cli.ts: close the streams, flush the store, exit 0). That is
//   the only fix for SIGINT: nothing below a shell can see a signal the shell holds. cmd.exe has
//   no exec; ../exec.cmd stands in for it there.
// - this process watches its parent: once that is gone without passing a signal on (npm killed
//   with SIGKILL, or a shell that ran the server as its child and died), it shuts the server down
//   as SIGTERM does. Only `npm start` does this: the `flagwire-server` bin keeps serving when what
//   started it exits (`nohup`, a daemon's launcher).
// - with npm as the parent, one Ctrl+C in a terminal arrives twice, from the terminal and again
//   from npm, and the CLI takes a second signal as "exit now, before the store is flushed". A
//   repeat within DUPLICATE_MS of the first signal is that same Ctrl+C and is dropped; a later one
//   still forces the exit.
const DUPLICATE_MS = 500;
const SIGNALS = ['SIGINT', 'SIGTERM'];
const parent = process.ppid;

function parentGone() {
  // POSIX hands an orphan to init or a subreaper; Windows leaves the parent's pid as it was.
  if (process.ppid !== parent) return true;
  try {
    process.kill(parent, 0);
    return false;
  } catch (error) {
    return error.code === 'ESRCH';
  }
}

// On import the CLI parses its flags, installs its SIGINT and SIGTERM handlers and starts.
await import('../dist/cli.js');

const watch = setInterval(() => {
  if (!parentGone()) return;
  clearInterval(watch);
  // The CLI's SIGTERM handler; Windows has no signal to raise, so its listeners are called.
  if (process.platform === 'win32') process.emit('SIGTERM', 'SIGTERM');
  else process.kill(process.pid, 'SIGTERM');
}, 250);
watch.unref();

let first;
for (const signal of SIGNALS) {
  const cli = process.listeners(signal);
  if (cli.length === 0) continue; // --help: the CLI has already finished
  process.removeAllListeners(signal);
  process.on(signal, () => {
    clearInterval(watch); // the server is shutting down already
    const now = performance.now();
    if (first !== undefined && now - first < DUPLICATE_MS) return;
    first ??= now;
    for (const listener of cli) listener(signal);
  });
}
