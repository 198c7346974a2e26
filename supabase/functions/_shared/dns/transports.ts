/**
 * How a DNS message travels: DNS over HTTPS (RFC 8484, POST `application/dns-message`), or UDP to a
 * `host:port` resolver with TCP (RFC 1035 §4.2.2, two-byte length prefix) when the UDP answer is truncated.
 * Each exchange returns the answer's bytes, or says why there are none; it never throws.
 */
import dgram from "node:dgram";
import { Buffer } from "node:buffer";
import { isIP } from "node:net";

export type Exchange =
  | { kind: "bytes"; bytes: Uint8Array }
  | { kind: "timeout" }
  | { kind: "failure"; detail: string };

export interface NameserverAddress {
  ipAddr: string;
  port: number;
}

const DNS_MESSAGE = "application/dns-message";
/** The largest DNS message over TCP; a DoH body larger than this is not a DNS answer. */
const MAX_MESSAGE_BYTES = 65_535;

/** One RFC 8484 exchange (POST), within `timeoutMs` for the whole request and body. */
export async function dohExchange(
  url: string,
  query: Uint8Array,
  timeoutMs: number,
  fetchImpl: typeof fetch = fetch,
): Promise<Exchange> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetchImpl(url, {
      method: "POST",
      headers: { "content-type": DNS_MESSAGE, accept: DNS_MESSAGE },
      body: new Uint8Array(query),
      signal: controller.signal,
      redirect: "error",
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: "failure", detail: `DoH answered HTTP ${response.status}` };
    }
    const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== DNS_MESSAGE) {
      await response.body?.cancel();
      return { kind: "failure", detail: `DoH answered ${type || "no content type"}` };
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > MAX_MESSAGE_BYTES) return { kind: "failure", detail: "DoH answer too large" };
    return { kind: "bytes", bytes };
  } catch (error) {
    if (controller.signal.aborted) return { kind: "timeout" };
    return { kind: "failure", detail: `DoH request failed: ${(error as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One UDP exchange. `accept` says whether a datagram is the answer to this query (right id); others are
 * ignored, as a resolver must (RFC 5452), and the wait goes on until `timeoutMs`.
 */
export function udpExchange(
  server: NameserverAddress,
  query: Uint8Array,
  timeoutMs: number,
  accept: (bytes: Uint8Array) => boolean,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(isIP(server.ipAddr) === 6 ? "udp6" : "udp4");
    let settled = false;
    const finish = (result: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        socket.close();
      } catch {
        // already closed
      }
      resolve(result);
    };
    const timer = setTimeout(() => finish({ kind: "timeout" }), timeoutMs);
    socket.on("error", (error: Error) => finish({ kind: "failure", detail: `UDP: ${error.message}` }));
    socket.on("message", (message: Buffer) => {
      const bytes = new Uint8Array(message);
      if (accept(bytes)) finish({ kind: "bytes", bytes });
    });
    socket.send(Buffer.from(query), server.port, server.ipAddr, (error: Error | null) => {
      if (error) finish({ kind: "failure", detail: `UDP: ${error.message}` });
    });
  });
}

/** One TCP exchange: the query and the answer each preceded by their length (two bytes, big-endian). */
export async function tcpExchange(
  server: NameserverAddress,
  query: Uint8Array,
  timeoutMs: number,
): Promise<Exchange> {
  let connection: Deno.TcpConn | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      connection?.close();
    } catch {
      // already closed
    }
  }, timeoutMs);
  let timedOut = false;
  try {
    connection = await Deno.connect({ hostname: server.ipAddr, port: server.port, transport: "tcp" });
    if (timedOut) {
      connection.close();
      return { kind: "timeout" };
    }
    const framed = new Uint8Array(query.byteLength + 2);
    framed[0] = query.byteLength >> 8;
    framed[1] = query.byteLength & 0xff;
    framed.set(query, 2);
    await writeAll(connection, framed);
    const header = await readExactly(connection, 2);
    if (header === null) return timedOut ? { kind: "timeout" } : { kind: "failure", detail: "TCP: closed" };
    const body = await readExactly(connection, (header[0] << 8) | header[1]);
    if (body === null) return timedOut ? { kind: "timeout" } : { kind: "failure", detail: "TCP: closed" };
    return { kind: "bytes", bytes: body };
  } catch (error) {
    return timedOut ? { kind: "timeout" } : { kind: "failure", detail: `TCP: ${(error as Error).message}` };
  } finally {
    clearTimeout(timer);
    if (!timedOut) {
      try {
        connection?.close();
      } catch {
        // already closed
      }
    }
  }
}

async function writeAll(connection: Deno.TcpConn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.byteLength) written += await connection.write(bytes.subarray(written));
}

async function readExactly(connection: Deno.TcpConn, length: number): Promise<Uint8Array | null> {
  const out = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const chunk = new Uint8Array(length - filled);
    const read = await connection.read(chunk);
    if (read === null) return null;
    out.set(chunk.subarray(0, read), filled);
    filled += read;
  }
  return out;
}
