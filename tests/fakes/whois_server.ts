/**
 * A WHOIS server (RFC 3912) on 127.0.0.1 for tests and `deno task fakes`: it reads one query line, answers,
 * and closes, in the phrasing of the registry whose suffix the name has (tests/fixtures/whois/answers.ts),
 * encoded as that registry does (Latin-1 for the rows that say so). `WHOIS_SERVER=<address>` sends every
 * WHOIS query here. Per name it answers as set: registered, pending delete, available (the default),
 * rate-limited, empty, unrecognised, oversized (over 64 KiB), a Latin-1 record, silence (a timeout), or a
 * half answer.
 */
import { WHOIS_SAMPLES } from "../fixtures/whois/answers.ts";

export type WhoisState =
  | "registered"
  | "pending_delete"
  | "available"
  | "rate_limited"
  | "empty"
  | "unrecognized"
  | "oversized"
  | "latin1"
  | "silent"
  | "half";

export interface WhoisQueryRecord {
  /** The query line as received, without CRLF. */
  line: string;
  name: string;
  at: number;
}

export interface FakeWhois {
  /** `127.0.0.1:<port>`, the form `WHOIS_SERVER` takes. */
  address: string;
  port: number;
  set(name: string, state: WhoisState): void;
  queries: WhoisQueryRecord[];
  close(): Promise<void>;
}

/** Suffixes whose registry answers in Latin-1 (the shipped rows' `encoding`). */
const LATIN1_SUFFIXES = new Set(["dk", "hu"]);

/** The name in a query line: the row's query format may add text around it (JPRS's `/e`). */
export function nameInQuery(line: string): string {
  return line.trim().split(/\s+/).pop()!.replace(/\/e$/i, "").toLowerCase();
}

function suffixOf(name: string): string | null {
  const labels = name.split(".");
  for (let start = 1; start < labels.length; start++) {
    const suffix = labels.slice(start).join(".");
    if (WHOIS_SAMPLES[suffix]) return suffix;
  }
  return null;
}

function latin1(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => (char.charCodeAt(0) < 256 ? char.charCodeAt(0) : 0x3f));
}

export function fakeWhoisAnswer(name: string, state: WhoisState): Uint8Array {
  const suffix = suffixOf(name);
  const samples = suffix === null ? null : WHOIS_SAMPLES[suffix];
  const encode = (text: string) =>
    suffix !== null && LATIN1_SUFFIXES.has(suffix) ? latin1(text) : new TextEncoder().encode(text);
  if (samples === null) return new TextEncoder().encode("% This server does not serve that name.\r\n");
  switch (state) {
    case "registered":
      return encode(samples.found(name));
    case "pending_delete":
      return encode((samples.pendingDelete ?? samples.found)(name));
    case "available":
      return encode(samples.notFound(name));
    case "rate_limited":
      return encode(samples.rateLimited);
    case "empty":
      return new Uint8Array();
    case "unrecognized":
      return encode("% The service is under maintenance. Please come back soon.\r\n");
    case "oversized":
      return encode(samples.notFound(name) + "%".repeat(70 * 1024) + "\r\n");
    case "latin1":
      return latin1(samples.found(name).replace(/\r\n$/, "\r\nRemarks: Société Générale, Zürich\r\n"));
    case "silent":
    case "half":
      return encode(samples.found(name));
  }
}

export function startFakeWhois(options: { port?: number } = {}): FakeWhois {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: options.port ?? 0, transport: "tcp" });
  const states = new Map<string, WhoisState>();
  const queries: WhoisQueryRecord[] = [];
  const open = new Set<Deno.Conn>();
  let closing = false;

  async function serve(conn: Deno.Conn): Promise<void> {
    open.add(conn);
    try {
      const buffer = new Uint8Array(1024);
      let received = "";
      while (!received.includes("\n")) {
        const read = await conn.read(buffer);
        if (read === null) return;
        received += new TextDecoder().decode(buffer.subarray(0, read));
        if (received.length > 1000) return;
      }
      const line = received.split(/\r?\n/)[0];
      const name = nameInQuery(line);
      queries.push({ line, name, at: Date.now() });
      const state = states.get(name) ?? "available";
      if (state === "silent") {
        // Holds the connection open without a word until the client gives up (or the fake closes).
        await conn.read(buffer).catch(() => null);
        return;
      }
      const answer = fakeWhoisAnswer(name, state);
      const body = state === "half" ? answer.subarray(0, Math.floor(answer.byteLength / 2)) : answer;
      let written = 0;
      while (written < body.byteLength) written += await conn.write(body.subarray(written));
    } catch {
      // The client went away.
    } finally {
      open.delete(conn);
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  }

  const accepting = (async () => {
    for await (const conn of listener) {
      if (closing) {
        conn.close();
        continue;
      }
      serve(conn);
    }
  })().catch(() => {});

  const port = (listener.addr as Deno.NetAddr).port;
  return {
    address: `127.0.0.1:${port}`,
    port,
    set: (name, state) => {
      states.set(name.toLowerCase(), state);
    },
    queries,
    async close() {
      closing = true;
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await accepting;
    },
  };
}
