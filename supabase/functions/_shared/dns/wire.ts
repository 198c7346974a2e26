/**
 * DNS messages for NS look-ups, through the `dns-packet` codec (RFC 1035 wire format): the query we send,
 * and what an answer says. Pure: no I/O here.
 */
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";

/** The response codes a look-up can end with (RFC 1035 §4.1.1, RFC 6895), as `dns-packet` names them. */
export type DnsRcode = string;

/** What one DNS answer said about a name's NS records, or why it could not be read. */
export type NsAnswer =
  | {
    kind: "answer";
    rcode: DnsRcode;
    truncated: boolean;
    /** NS targets whose owner is the asked name (answer or authority section), lower case, no trailing dot. */
    nameservers: string[];
  }
  | { kind: "unreadable" };

interface DecodedRecord {
  name?: string;
  type?: string;
  data?: unknown;
}

interface DecodedPacket {
  id?: number;
  type?: string;
  rcode?: string;
  flag_tc?: boolean;
  questions?: DecodedRecord[];
  answers?: DecodedRecord[];
  authorities?: DecodedRecord[];
}

interface DnsPacketCodec {
  encode(packet: Record<string, unknown>): Uint8Array;
  decode(bytes: Uint8Array): DecodedPacket;
  RECURSION_DESIRED: number;
}

const codec = dnsPacket as unknown as DnsPacketCodec;

/** A recursive NS query for `name` (RD set, one question, class IN). */
export function encodeNsQuery(name: string, id: number): Uint8Array {
  return new Uint8Array(codec.encode({
    type: "query",
    id,
    flags: codec.RECURSION_DESIRED,
    questions: [{ type: "NS", class: "IN", name: canonicalName(name) }],
  }));
}

/** A random 16-bit query id. */
export function newQueryId(): number {
  return crypto.getRandomValues(new Uint16Array(1))[0];
}

/**
 * Reads an answer to `encodeNsQuery(name, id)`. Anything that is not a response to that very question
 * (another id, another name, not a response, bytes that do not decode) is unreadable.
 */
export function readNsAnswer(bytes: Uint8Array, expected: { id: number | null; name: string }): NsAnswer {
  let packet: DecodedPacket;
  try {
    packet = codec.decode(Buffer.from(bytes));
  } catch {
    return { kind: "unreadable" };
  }
  if (packet.type !== "response" || typeof packet.rcode !== "string") return { kind: "unreadable" };
  if (expected.id !== null && packet.id !== expected.id) return { kind: "unreadable" };
  const asked = canonicalName(expected.name);
  const question = packet.questions?.[0];
  if (!question || canonicalName(String(question.name ?? "")) !== asked || question.type !== "NS") {
    return { kind: "unreadable" };
  }
  const records = [...(packet.answers ?? []), ...(packet.authorities ?? [])];
  const nameservers = records
    .filter((record) => record.type === "NS" && canonicalName(String(record.name ?? "")) === asked)
    .map((record) => typeof record.data === "string" ? canonicalName(record.data) : "")
    .filter((target) => target !== "");
  return {
    kind: "answer",
    rcode: packet.rcode,
    truncated: packet.flag_tc === true,
    nameservers: [...new Set(nameservers)].sort(),
  };
}

function canonicalName(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, "");
}
