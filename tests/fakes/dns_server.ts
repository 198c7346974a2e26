/**
 * A small DNS server on 127.0.0.1 for tests, speaking three transports: UDP, TCP (same port number) and
 * DNS over HTTPS (RFC 8484 POST on `dohUrl`). It answers NS queries from a table: delegated names get NS
 * records, other names NXDOMAIN. Like the root zone, it knows every top-level domain: a single-label name
 * gets `a.nic.<tld>` unless the table says otherwise. Other behaviours per name: `setTimeout` (never
 * answered), `setServerFailure` (SERVFAIL), `setRefused` (REFUSED), `setNoData` (NOERROR without NS),
 * `setTruncated` (a truncated UDP answer; TCP answers in full), `setGarbage` (bytes that are no DNS message).
 * A and AAAA queries are answered from `setAddresses`: a sequence per type, each query taking the next
 * answer (the last repeats), with TTL 0, as a rebinding DNS server would; a type without answers gets
 * NOERROR and no records.
 */
import dgram from "node:dgram";
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";

export interface DnsQueryRecord {
  name: string;
  /** 2 for NS, 1 for A, 28 for AAAA, 0 for anything else. */
  type: number;
  at: number;
  transport: "udp" | "tcp" | "doh";
}

export interface FakeDns {
  /** `127.0.0.1:<port>`, the form `DNS_NAMESERVER` takes (UDP, and TCP on the same port). */
  address: string;
  port: number;
  /** The RFC 8484 endpoint, the form `DNS_DOH_URL` takes. */
  dohUrl: string;
  setDelegated(name: string, nameservers: string[]): void;
  setTimeout(name: string): void;
  setServerFailure(name: string): void;
  setRefused(name: string): void;
  setNoData(name: string): void;
  setTruncated(name: string, nameservers: string[]): void;
  setGarbage(name: string): void;
  /** A and AAAA answers for `name`: each query of a type takes the next list of its sequence. */
  setAddresses(name: string, answers: { A?: string[][]; AAAA?: string[][] }): void;
  remove(name: string): void;
  queries: DnsQueryRecord[];
  close(): Promise<void>;
}

type Behaviour =
  | { kind: "delegated"; nameservers: string[] }
  | { kind: "truncated"; nameservers: string[] }
  | { kind: "timeout" }
  | { kind: "rcode"; rcode: number }
  | { kind: "nodata" }
  | { kind: "garbage" };

export interface FakeDnsOptions {
  port?: number;
  /** Serve DNS over HTTPS with this certificate and key (PEM); the client must trust its authority. */
  tls?: { cert: string; key: string };
  delegated?: Record<string, string[]>;
  timeout?: string[];
}

const TYPE_NS = 2;
const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 };
const FLAG_AA = 1 << 10;
const FLAG_TC = 1 << 9;
const FLAG_RA = 1 << 7;

interface Packet {
  id?: number;
  flags?: number;
  questions?: { name: string; type: string; class?: string }[];
}

const codec = dnsPacket as unknown as {
  encode(packet: Record<string, unknown>): Uint8Array;
  decode(bytes: Uint8Array): Packet;
};

export async function startFakeDns(options: FakeDnsOptions = {}): Promise<FakeDns> {
  const table = new Map<string, Behaviour>();
  const addresses = new Map<string, { A: string[][]; AAAA: string[][] }>();
  const queries: DnsQueryRecord[] = [];
  const hanging = new Set<() => void>();
  const key = (name: string) => name.toLowerCase().replace(/\.$/, "");

  for (const [name, nameservers] of Object.entries(options.delegated ?? {})) {
    table.set(key(name), { kind: "delegated", nameservers });
  }
  for (const name of options.timeout ?? []) table.set(key(name), { kind: "timeout" });

  /** The reply to `message` over `transport`, or null for no reply. */
  function answer(message: Uint8Array, transport: DnsQueryRecord["transport"]): Uint8Array | null {
    let query: Packet;
    try {
      query = codec.decode(Buffer.from(message));
    } catch {
      return null;
    }
    const question = query.questions?.[0];
    if (!question) return null;
    queries.push({
      name: key(question.name),
      type: ({ NS: TYPE_NS, A: 1, AAAA: 28 } as Record<string, number>)[question.type] ?? 0,
      at: Date.now(),
      transport,
    });
    const sequences = addresses.get(key(question.name));
    if (sequences && (question.type === "A" || question.type === "AAAA")) {
      const sequence = sequences[question.type];
      const next = sequence.length > 1 ? sequence.shift()! : sequence[0] ?? [];
      return new Uint8Array(codec.encode({
        type: "response",
        id: query.id ?? 0,
        flags: FLAG_AA | FLAG_RA | ((query.flags ?? 0) & 0x0100),
        questions: [question],
        answers: next.map((data) => ({
          type: question.type,
          class: "IN",
          name: question.name,
          ttl: 0,
          data,
        })),
      }));
    }
    const behaviour = table.get(key(question.name)) ?? topLevelDomain(key(question.name));
    const reply = (rcode: number, nameservers: string[], extraFlags = 0) =>
      new Uint8Array(codec.encode({
        type: "response",
        id: query.id ?? 0,
        flags: FLAG_AA | FLAG_RA | ((query.flags ?? 0) & 0x0100) | extraFlags | rcode,
        questions: [question],
        answers: question.type === "NS"
          ? nameservers.map((data) => ({ type: "NS", class: "IN", name: question.name, ttl: 3600, data }))
          : [],
      }));
    switch (behaviour?.kind) {
      case "timeout":
        return null;
      case "garbage":
        return new TextEncoder().encode("this is not a DNS message");
      case "rcode":
        return reply(behaviour.rcode, []);
      case "nodata":
        return reply(RCODE.NOERROR, []);
      case "delegated":
        return reply(RCODE.NOERROR, behaviour.nameservers);
      case "truncated":
        return transport === "udp"
          ? reply(RCODE.NOERROR, [], FLAG_TC)
          : reply(RCODE.NOERROR, behaviour.nameservers);
      default:
        return reply(RCODE.NXDOMAIN, []);
    }
  }

  const { socket, tcp, port } = await bindUdpAndTcp(options.port, (message, remote, udp) => {
    const reply = answer(new Uint8Array(message), "udp");
    if (reply) udp.send(Buffer.from(reply), remote.port, remote.address);
  });
  const connections = new Set<Deno.Conn>();
  (async () => {
    for await (const connection of tcp) {
      connections.add(connection);
      serveTcp(connection, answer).finally(() => {
        connections.delete(connection);
        try {
          connection.close();
        } catch {
          // already closed
        }
      });
    }
  })().catch(() => {});

  const doh = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, ...options.tls },
    async (request) => {
      if (new URL(request.url).pathname !== "/dns-query") return new Response("not here", { status: 404 });
      if (request.method !== "POST" || request.headers.get("content-type") !== "application/dns-message") {
        return new Response("bad request", { status: 400 });
      }
      const reply = answer(new Uint8Array(await request.arrayBuffer()), "doh");
      if (reply === null) {
        return new Promise<Response>((resolve) => {
          const release = () => {
            hanging.delete(release);
            resolve(new Response("", { status: 504 }));
          };
          hanging.add(release);
        });
      }
      return new Response(new Uint8Array(reply), { headers: { "content-type": "application/dns-message" } });
    },
  );

  return {
    address: `127.0.0.1:${port}`,
    port,
    dohUrl: `${options.tls ? "https" : "http"}://127.0.0.1:${doh.addr.port}/dns-query`,
    setDelegated: (name, nameservers) => table.set(key(name), { kind: "delegated", nameservers }),
    setTimeout: (name) => table.set(key(name), { kind: "timeout" }),
    setServerFailure: (name) => table.set(key(name), { kind: "rcode", rcode: RCODE.SERVFAIL }),
    setRefused: (name) => table.set(key(name), { kind: "rcode", rcode: RCODE.REFUSED }),
    setNoData: (name) => table.set(key(name), { kind: "nodata" }),
    setTruncated: (name, nameservers) => table.set(key(name), { kind: "truncated", nameservers }),
    setGarbage: (name) => table.set(key(name), { kind: "garbage" }),
    setAddresses: (name, answers) =>
      addresses.set(key(name), { A: [...(answers.A ?? [])], AAAA: [...(answers.AAAA ?? [])] }),
    remove: (name) => table.delete(key(name)),
    queries,
    close: async () => {
      for (const release of [...hanging]) release();
      await doh.shutdown();
      try {
        tcp.close();
      } catch {
        // already closed (a signal can stop the listener first)
      }
      for (const connection of connections) {
        try {
          connection.close();
        } catch {
          // already closed
        }
      }
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

type UdpHandler = (message: Buffer, remote: { address: string; port: number }, socket: dgram.Socket) => void;

/**
 * A UDP socket and a TCP listener on the same port number. With no port given, a free UDP port whose TCP
 * twin is taken by someone else is given up and another one tried.
 */
async function bindUdpAndTcp(
  wanted: number | undefined,
  onMessage: UdpHandler,
): Promise<{ socket: dgram.Socket; tcp: Deno.Listener; port: number }> {
  for (let attempt = 1;; attempt++) {
    const socket = dgram.createSocket("udp4");
    socket.on(
      "message",
      (message: Buffer, remote: { address: string; port: number }) => onMessage(message, remote, socket),
    );
    await new Promise<void>((resolve) => socket.bind(wanted ?? 0, "127.0.0.1", () => resolve()));
    const port = socket.address().port;
    try {
      const tcp = Deno.listen({ hostname: "127.0.0.1", port, transport: "tcp" });
      return { socket, tcp, port };
    } catch (error) {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      if (wanted !== undefined || !(error instanceof Deno.errors.AddrInUse) || attempt >= 20) throw error;
    }
  }
}

function topLevelDomain(name: string): Behaviour | undefined {
  return name !== "" && !name.includes(".")
    ? { kind: "delegated", nameservers: [`a.nic.${name}`] }
    : undefined;
}

async function serveTcp(
  connection: Deno.Conn,
  answer: (message: Uint8Array, transport: "tcp") => Uint8Array | null,
): Promise<void> {
  const header = await readExactly(connection, 2);
  if (header === null) return;
  const message = await readExactly(connection, (header[0] << 8) | header[1]);
  if (message === null) return;
  const reply = answer(message, "tcp");
  if (reply === null) {
    // Play a resolver that never answers: keep the connection open until the client gives up.
    await connection.read(new Uint8Array(1)).catch(() => null);
    return;
  }
  const framed = new Uint8Array(reply.byteLength + 2);
  framed[0] = reply.byteLength >> 8;
  framed[1] = reply.byteLength & 0xff;
  framed.set(reply, 2);
  let written = 0;
  while (written < framed.byteLength) written += await connection.write(framed.subarray(written));
}

async function readExactly(connection: Deno.Conn, length: number): Promise<Uint8Array | null> {
  const out = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const chunk = new Uint8Array(length - filled);
    const read = await connection.read(chunk).catch(() => null);
    if (read === null) return null;
    out.set(chunk.subarray(0, read), filled);
    filled += read;
  }
  return out;
}
