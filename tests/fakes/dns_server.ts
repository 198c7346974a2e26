/**
 * A small authoritative-style DNS server on 127.0.0.1 (UDP) for tests.
 * It answers NS queries from a table: delegated names get NS records, other names NXDOMAIN. Like the root
 * zone, it knows every top-level domain: a single-label name gets `a.nic.<tld>` unless the table says
 * otherwise (e.g. `setServerFailure("com")` to play a resolver that cannot resolve anything under it).
 * Names set with `setTimeout` are never answered; names set with `setServerFailure` get SERVFAIL.
 */
import dgram from "node:dgram";
import { Buffer } from "node:buffer";

const TYPE_NS = 2;
const RCODE_NOERROR = 0;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;

export interface DnsQueryRecord {
  name: string;
  type: number;
  at: number;
}

export interface FakeDns {
  /** `127.0.0.1:<port>`, the form `DNS_NAMESERVER` takes. */
  address: string;
  port: number;
  setDelegated(name: string, nameservers: string[]): void;
  setTimeout(name: string): void;
  setServerFailure(name: string): void;
  remove(name: string): void;
  queries: DnsQueryRecord[];
  close(): Promise<void>;
}

type Behaviour = { kind: "delegated"; nameservers: string[] } | { kind: "timeout" } | { kind: "servfail" };

export interface FakeDnsOptions {
  port?: number;
  delegated?: Record<string, string[]>;
  timeout?: string[];
}

export async function startFakeDns(options: FakeDnsOptions = {}): Promise<FakeDns> {
  const table = new Map<string, Behaviour>();
  const queries: DnsQueryRecord[] = [];
  const key = (name: string) => name.toLowerCase().replace(/\.$/, "");

  for (const [name, nameservers] of Object.entries(options.delegated ?? {})) {
    table.set(key(name), { kind: "delegated", nameservers });
  }
  for (const name of options.timeout ?? []) table.set(key(name), { kind: "timeout" });

  const socket = dgram.createSocket("udp4");
  socket.on("message", (message: Buffer, remote: { address: string; port: number }) => {
    const question = readQuestion(message);
    if (!question) return;
    queries.push({ name: question.name, type: question.type, at: Date.now() });
    const behaviour = table.get(key(question.name)) ?? topLevelDomain(question.name);
    if (behaviour?.kind === "timeout") return;
    let reply: Uint8Array;
    if (behaviour?.kind === "servfail") {
      reply = buildReply(message, question.end, RCODE_SERVFAIL, []);
    } else if (behaviour?.kind === "delegated") {
      const answers = question.type === TYPE_NS ? behaviour.nameservers : [];
      reply = buildReply(message, question.end, RCODE_NOERROR, answers);
    } else {
      reply = buildReply(message, question.end, RCODE_NXDOMAIN, []);
    }
    socket.send(Buffer.from(reply), remote.port, remote.address);
  });

  await new Promise<void>((resolve) => socket.bind(options.port ?? 0, "127.0.0.1", () => resolve()));
  const port = socket.address().port;

  return {
    address: `127.0.0.1:${port}`,
    port,
    setDelegated: (name, nameservers) => table.set(key(name), { kind: "delegated", nameservers }),
    setTimeout: (name) => table.set(key(name), { kind: "timeout" }),
    setServerFailure: (name) => table.set(key(name), { kind: "servfail" }),
    remove: (name) => table.delete(key(name)),
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function topLevelDomain(name: string): Behaviour | undefined {
  return name !== "" && !name.includes(".")
    ? { kind: "delegated", nameservers: [`a.nic.${name}`] }
    : undefined;
}

interface Question {
  name: string;
  type: number;
  /** Offset just past the question's QTYPE and QCLASS. */
  end: number;
}

function readQuestion(message: Uint8Array): Question | null {
  if (message.length < 12) return null;
  const questionCount = (message[4] << 8) | message[5];
  if (questionCount < 1) return null;
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset];
    offset += 1;
    if (length === 0) break;
    labels.push(new TextDecoder().decode(message.subarray(offset, offset + length)));
    offset += length;
  }
  if (offset + 4 > message.length) return null;
  const type = (message[offset] << 8) | message[offset + 1];
  return { name: labels.join("."), type, end: offset + 4 };
}

function buildReply(
  query: Uint8Array,
  questionEnd: number,
  rcode: number,
  nameservers: string[],
): Uint8Array {
  const bytes: number[] = [];
  bytes.push(query[0], query[1]); // id
  const recursionDesired = query[2] & 0x01;
  bytes.push(0x80 | 0x04 | recursionDesired, 0x80 | rcode); // QR, AA, RD; RA, RCODE
  bytes.push(0, 1); // one question
  bytes.push((nameservers.length >> 8) & 0xff, nameservers.length & 0xff);
  bytes.push(0, 0, 0, 0); // no authority, no additional
  bytes.push(...query.subarray(12, questionEnd));
  for (const nameserver of nameservers) {
    const rdata = encodeName(nameserver);
    bytes.push(0xc0, 0x0c); // pointer to the question name
    bytes.push(0, TYPE_NS, 0, 1); // type NS, class IN
    bytes.push(0, 0, 0x0e, 0x10); // TTL 3600
    bytes.push((rdata.length >> 8) & 0xff, rdata.length & 0xff);
    bytes.push(...rdata);
  }
  return new Uint8Array(bytes);
}

function encodeName(name: string): number[] {
  const bytes: number[] = [];
  for (const label of name.replace(/\.$/, "").split(".")) {
    const encoded = new TextEncoder().encode(label);
    bytes.push(encoded.length, ...encoded);
  }
  bytes.push(0);
  return bytes;
}
