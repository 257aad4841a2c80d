/** Listening on the options' host and port, with errors a person can act on, and the URL to print. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function listen(server: Server, port: number, host: string, backlog: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(new Error(`port ${port} on ${host} is already in use; pick another with --port`));
      else if (error.code === 'EADDRNOTAVAIL')
        reject(new Error(`cannot listen on ${host}: no such local address`));
      else reject(error);
    };
    server.once('error', onError);
    server.listen({ port, host, backlog }, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** `http://HOST:PORT` of a listening address; a wildcard address is shown as the loopback one. */
export function urlOf(address: AddressInfo): string {
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost === '[::]' ? '[::1]' : shownHost}:${address.port}`;
}
