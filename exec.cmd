@rem `exec` for cmd.exe, which npm runs scripts with on Windows: package.json's start script is
@rem "exec node scripts/start.mjs" so that a POSIX shell becomes the server and npm's SIGINT and
@rem SIGTERM reach it (see scripts/start.mjs). cmd.exe has no exec and finds this file in the
@rem package folder instead, which runs the rest of the line.
@%*
