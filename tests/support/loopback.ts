/**
 * Local HTTP servers on loopback that stand in for a model server in tests: listen on a
 * free port and give the base URL an OpenAI-compatible client is pointed at; close with
 * the connections still open (a stalled stream) cut first.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on 127.0.0.1 at a free port; returns its `/v1` base URL. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** Closes `server`, cutting the connections still open. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
