/**
 * Which IP addresses a webhook may be sent to. The same ranges as `public.is_non_public_address` in the
 * database (20261122000900_webhook_targets.sql), applied here to IP literals and to every address a host name
 * resolves to. IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are
 * judged by that IPv4 address; Teredo is refused.
 */

export type AddressClass = "public" | "loopback" | "non_public" | "invalid";

type Range = { bytes: number[]; bits: number };

function range(bytes: number[], bits: number): Range {
  return { bytes, bits };
}

const NON_PUBLIC_V4: Range[] = [
  range([0, 0, 0, 0], 8),
  range([10, 0, 0, 0], 8),
  range([100, 64, 0, 0], 10),
  range([169, 254, 0, 0], 16),
  range([172, 16, 0, 0], 12),
  range([192, 0, 0, 0], 24),
  range([192, 0, 2, 0], 24),
  range([192, 88, 99, 0], 24),
  range([192, 168, 0, 0], 16),
  range([198, 18, 0, 0], 15),
  range([198, 51, 100, 0], 24),
  range([203, 0, 113, 0], 24),
  range([224, 0, 0, 0], 4),
  range([240, 0, 0, 0], 4),
];

const LOOPBACK_V4 = range([127, 0, 0, 0], 8);

const NON_PUBLIC_V6: Range[] = [
  range([0x00, 0x64, 0xff, 0x9b, 0, 1], 48), // 64:ff9b:1::/48, local-use NAT64
  range([0x01, 0x00, 0, 0, 0, 0, 0, 0], 64), // 100::/64, discard
  range([0x20, 0x01, 0x00, 0x00], 32), // 2001::/32, Teredo
  range([0x20, 0x01, 0x00, 0x10], 28), // 2001:10::/28, ORCHID
  range([0x20, 0x01, 0x0d, 0xb8], 32), // 2001:db8::/32, documentation
  range([0xfc], 7), // fc00::/7, unique local (fd00::/8 included)
  range([0xfe, 0x80], 10), // fe80::/10, link-local
  range([0xfe, 0xc0], 10), // fec0::/10, site-local
  range([0xff], 8), // ff00::/8, multicast
];

/** Classifies an IPv4 or IPv6 address in text form (brackets and no zone index; `[::1]` is accepted). */
export function classifyAddress(text: string): AddressClass {
  const address = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIpv4(address);
  if (v4) return classifyIpv4(v4);
  const v6 = parseIpv6(address);
  if (v6) return classifyIpv6(v6);
  return "invalid";
}

/** May a webhook be sent to this address? Loopback only when private targets are allowed (local use). */
export function isAllowedAddress(text: string, allowPrivateTargets: boolean): boolean {
  const kind = classifyAddress(text);
  return kind === "public" || (kind === "loopback" && allowPrivateTargets);
}

/** Is `host` (a URL's hostname) an IP literal rather than a DNS name? */
export function isIpLiteral(host: string): boolean {
  return classifyAddress(host) !== "invalid";
}

function classifyIpv4(bytes: number[]): AddressClass {
  if (inRange(bytes, LOOPBACK_V4)) return "loopback";
  return NON_PUBLIC_V4.some((r) => inRange(bytes, r)) ? "non_public" : "public";
}

function classifyIpv6(bytes: number[]): AddressClass {
  const firstTen = bytes.slice(0, 10).every((b) => b === 0);
  if (firstTen && bytes[10] === 0 && bytes[11] === 0) {
    // ::/96: unspecified (::), loopback (::1), or the deprecated IPv4-compatible form ::a.b.c.d.
    if (bytes.slice(12, 15).every((b) => b === 0) && bytes[15] <= 1) {
      return bytes[15] === 1 ? "loopback" : "non_public";
    }
    return classifyIpv4(bytes.slice(12));
  }
  if (firstTen && bytes[10] === 0xff && bytes[11] === 0xff) return classifyIpv4(bytes.slice(12)); // ::ffff:a.b.c.d
  const nat64 = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0];
  if (nat64.every((b, i) => bytes[i] === b)) return classifyIpv4(bytes.slice(12)); // 64:ff9b::a.b.c.d
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return classifyIpv4(bytes.slice(2, 6)); // 2002:aabb:ccdd::/48
  return NON_PUBLIC_V6.some((r) => inRange(bytes, r)) ? "non_public" : "public";
}

function inRange(bytes: number[], r: Range): boolean {
  let bits = r.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== ((r.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Dotted-quad IPv4 only (what URL parsing and DNS answers produce), as four bytes. */
export function parseIpv4(text: string): number[] | null {
  const match = text.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (!match) return null;
  const bytes = match.slice(1).map(Number);
  return bytes.every((b) => b <= 255) ? bytes : null;
}

/** IPv6 text (with `::` and an optional dotted IPv4 tail; no zone index) as sixteen bytes. */
export function parseIpv6(text: string): number[] | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(":")) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0].split(":");
  const tail = halves.length === 2 ? (halves[1] === "" ? [] : halves[1].split(":")) : [];
  const words: number[] = [];
  const tailWords: number[] = [];
  if (!pushWords(head, words, halves.length === 1)) return null;
  if (!pushWords(tail, tailWords, true)) return null;
  if (halves.length === 1) {
    if (words.length !== 8) return null;
  } else {
    if (words.length + tailWords.length > 7) return null;
    while (words.length + tailWords.length < 8) words.push(0);
  }
  const all = [...words, ...tailWords];
  const bytes: number[] = [];
  for (const word of all) bytes.push(word >> 8, word & 0xff);
  return bytes;
}

/** Appends 16-bit words; a dotted IPv4 part is allowed only as the very last group of the address. */
function pushWords(parts: string[], words: number[], mayEndWithIpv4: boolean): boolean {
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.includes(".")) {
      if (!mayEndWithIpv4 || i !== parts.length - 1) return false;
      const v4 = parseIpv4(part);
      if (!v4) return false;
      words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      continue;
    }
    if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return false;
    words.push(parseInt(part, 16));
  }
  return true;
}
