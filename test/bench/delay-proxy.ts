// A TCP proxy that holds each chunk of data for a while before passing it on, in both directions: a
// database across a network, for the bench (BENCH_PG_DELAY_MS), where every round trip an op makes
// costs what it costs between two hosts. Bun's timers round short delays up to about a millisecond.
import type { Socket } from "bun";

type End = { peer: Socket<End> | null; pending: Uint8Array[]; unsent: Uint8Array[] };

/** Writes what the socket takes now and keeps the rest for its drain event. */
function send(socket: Socket<End>, chunk: Uint8Array): void {
  if (socket.data.unsent.length > 0) {
    socket.data.unsent.push(chunk);
    return;
  }
  const written = socket.write(chunk);
  if (written < chunk.length) socket.data.unsent.push(chunk.subarray(written));
}

function drain(socket: Socket<End>): void {
  while (socket.data.unsent.length > 0) {
    const chunk = socket.data.unsent[0]!;
    const written = socket.write(chunk);
    if (written < chunk.length) {
      socket.data.unsent[0] = chunk.subarray(written);
      return;
    }
    socket.data.unsent.shift();
  }
}

/** Forwards `chunk` to the other end after `delayMs` (or once that end is connected). */
function forward(from: Socket<End>, chunk: Uint8Array, delayMs: number): void {
  const copy = new Uint8Array(chunk);
  setTimeout(() => {
    if (from.data.peer) send(from.data.peer, copy);
    else from.data.pending.push(copy);
  }, delayMs);
}

/** Listens on a free port of 127.0.0.1 and proxies every connection to `targetPort` with the delay. */
export function startDelayProxy(targetPort: number, delayMs: number): { port: number; stop: () => void } {
  const handlers = {
    data: (socket: Socket<End>, chunk: Uint8Array) => forward(socket, chunk, delayMs),
    drain,
    close: (socket: Socket<End>) => void socket.data.peer?.end(),
  };
  const listener = Bun.listen<End>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      ...handlers,
      open(client) {
        client.data = { peer: null, pending: [], unsent: [] };
        void Bun.connect<End>({
          hostname: "127.0.0.1",
          port: targetPort,
          socket: {
            ...handlers,
            open(server) {
              server.data = { peer: client, pending: [], unsent: [] };
              client.data.peer = server;
              for (const chunk of client.data.pending) send(server, chunk);
              client.data.pending = [];
            },
          },
        }).catch(() => client.end());
      },
    },
  });
  return { port: listener.port, stop: () => listener.stop(true) };
}
