/**
 * A TCP pass-through in front of PostgreSQL that counts round trips: every burst the client sends after
 * having received something is one round trip (pipelined messages travel in one burst).
 */
export interface RoundTripProxy {
  port: number;
  roundTrips(): number;
  close(): void;
}

export function startRoundTripProxy(target: { hostname: string; port: number }): RoundTripProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let count = 0;
  const connections = new Set<Deno.Conn>();
  (async () => {
    for await (const client of listener) {
      const server = await Deno.connect(target);
      connections.add(client);
      connections.add(server);
      let awaitingReply = false;
      const pump = async (from: Deno.Conn, to: Deno.Conn, fromClient: boolean) => {
        const buffer = new Uint8Array(64 * 1024);
        try {
          while (true) {
            const n = await from.read(buffer);
            if (n === null) break;
            if (fromClient && !awaitingReply) {
              count++;
              awaitingReply = true;
            }
            if (!fromClient) awaitingReply = false;
            let written = 0;
            while (written < n) written += await to.write(buffer.subarray(written, n));
          }
        } catch {
          // closed
        } finally {
          for (const conn of [from, to]) {
            try {
              conn.close();
            } catch {
              // already closed
            }
            connections.delete(conn);
          }
        }
      };
      pump(client, server, true);
      pump(server, client, false);
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    roundTrips: () => count,
    close() {
      listener.close();
      for (const conn of connections) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
    },
  };
}
