/**
 * The one judge of every outbound URL: webhooks, RDAP redirects and registrar links (docs/url-policy.md).
 *
 * 1. `judgeUrl` (no I/O): the URL must be written in a strict form that the WHATWG URL parser reads
 *    exactly as written (ASCII host of letters, digits, dots and hyphens; no userinfo, percent-encoding,
 *    backslash, control character, trailing dot or `xn--` label; IPv4 only as a plain dotted quad), use
 *    https, and name a host that is not this machine, a single label or a private/metadata name, nor an IP
 *    literal outside the public ranges. The database's `private.outbound_url_problem` applies the same
 *    rules when a webhook is saved; a parity test runs one table of hostile forms through both.
 * 2. `checkOutboundUrl` (resolver injected): the judge, then every A and AAAA address a host name
 *    resolves to right now must be public. The request then connects to one of those addresses
 *    (`judged_fetch.ts`): resolve once, judge, connect there.
 *
 * `allowPrivateTargets` (WEBHOOK_ALLOW_PRIVATE_TARGETS, local use only) allows http and loopback.
 * IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by that
 * IPv4 address; Teredo is refused.
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
  range([0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96), // ::ffff:0:0:0/96, IPv4-translated (SIIT)
  range([0x01, 0x00, 0, 0, 0, 0, 0, 0], 64), // 100::/64, discard
  range([0x20, 0x01, 0x00, 0x00], 32), // 2001::/32, Teredo
  range([0x20, 0x01, 0x00, 0x10], 28), // 2001:10::/28, ORCHID
  range([0x20, 0x01, 0x0d, 0xb8], 32), // 2001:db8::/32, documentation
  range([0x3f, 0xff, 0x00], 20), // 3fff::/20, documentation (RFC 9637)
  range([0x5f, 0x00], 16), // 5f00::/16, SRv6 SIDs (RFC 9602)
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

/** May a request be sent to this address? Loopback only when private targets are allowed (local use). */
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

// ---------------------------------------------------------------------------------------------------
// The URL judge
// ---------------------------------------------------------------------------------------------------

export type UrlVerdict =
  | {
    ok: true;
    url: URL;
    /** Lower case; an IPv6 literal without brackets. */
    host: string;
    /** `ip`: an IP literal (already judged); `localhost`: this machine; `name`: resolve, then judge. */
    kind: "ip" | "name" | "localhost";
  }
  | { ok: false; problem: string };

export const MAX_URL_LENGTH = 2048;

/** Names that are this machine, private networks or cloud metadata services, whatever DNS says. */
const BLOCKED_NAMES = new Set(["metadata.google.internal", "metadata.goog", "instance-data.ec2.internal"]);
const BLOCKED_SUFFIXES = [".internal", ".local", ".localdomain", ".home.arpa", ".lan", ".intranet", ".corp"];

const DOTTED_QUAD =
  /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;

/** Judges one absolute URL without any I/O. The wording of each problem matches the database's. */
export function judgeUrl(text: string, allowPrivateTargets: boolean): UrlVerdict {
  const scheme = text.match(/^([A-Za-z][A-Za-z0-9+.-]*):\/\//)?.[1]?.toLowerCase();
  if (scheme === undefined) return refuse("The URL must be an absolute https:// URL.");
  if ([...text].length > MAX_URL_LENGTH) return refuse("The URL must be at most 2048 characters.");
  if (scheme !== "https" && !(scheme === "http" && allowPrivateTargets)) {
    return refuse("URLs must use https.");
  }
  // Control characters are exactly what is refused here (the WHATWG parser drops tabs and newlines).
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u0020\u007f\\]/.test(text)) {
    return refuse("The URL must not contain spaces, control characters or backslashes.");
  }
  const authority = text.slice(scheme.length + 3).match(/^[^/?#]*/)![0];
  if (authority.includes("@")) return refuse("The URL must not contain a user name or password.");

  const parts = authority.match(/^(\[[0-9A-Fa-f:.]*\]|[A-Za-z0-9.-]*)(?::([0-9]*))?$/);
  if (parts === null || parts[1] === "") {
    return refuse(
      "Write the URL's host in ASCII letters, digits, dots and hyphens, without percent-encoding.",
    );
  }
  if (parts[2] !== undefined && parts[2] !== "" && (parts[2].length > 5 || Number(parts[2]) > 65535)) {
    return refuse("The URL's port is not valid.");
  }
  const written = parts[1].toLowerCase();

  if (written.startsWith("[")) {
    const address = written.slice(1, -1);
    if (!/^[0-9a-f:]*:([0-9a-f]*|[0-9.]*)$/.test(address) || !ipv6TailIsDottedQuad(address)) {
      return refuse("The URL's IPv6 address is not valid.");
    }
    const bytes = parseIpv6(address);
    if (bytes === null) return refuse("The URL's IPv6 address is not valid.");
    const kind = classifyIpv6(bytes);
    return judgeAddress(kind, allowPrivateTargets) ??
      parsedAs(text, (hostname) => sameBytes(bytes, parseIpv6(hostname.slice(1, -1))), address, "ip");
  }

  if (written.endsWith(".")) return refuse("Write the URL's host without a trailing dot.");
  const labels = written.split(".");
  if (written.length > 253 || labels.some((label) => label === "" || label.length > 63)) {
    return refuse("The URL's host is not a valid DNS name.");
  }
  if (labels.some((label) => label.startsWith("xn--"))) {
    return refuse("Write the URL's host without xn-- (internationalised) labels.");
  }
  const sameHost = (hostname: string) => hostname === written;
  if (/^([0-9]+|0x[0-9a-f]*)$/.test(labels[labels.length - 1])) {
    // The WHATWG parser reads a host whose last label is a number as IPv4 (2130706433, 0x7f.1, 127.1, 0177.0.0.1).
    if (!DOTTED_QUAD.test(written)) {
      return refuse("Write the URL's host as a DNS name or a plain dotted IPv4 address.");
    }
    return judgeAddress(classifyIpv4(parseIpv4(written)!), allowPrivateTargets) ??
      parsedAs(text, sameHost, written, "ip");
  }
  if (written === "localhost" || written.endsWith(".localhost")) {
    return allowPrivateTargets
      ? parsedAs(text, sameHost, written, "localhost")
      : refuse("URLs must not point at this machine (localhost).");
  }
  if (
    labels.length < 2 || BLOCKED_NAMES.has(written) ||
    BLOCKED_SUFFIXES.some((suffix) => written.endsWith(suffix))
  ) {
    return refuse("The URL's host must be a public DNS name.");
  }
  return parsedAs(text, sameHost, written, "name");
}

/**
 * The accepted URL as the WHATWG parser reads it, which must be the host the rules above judged. Never
 * refuses a URL in the strict form (the parity test holds the database to the same verdicts).
 */
function parsedAs(
  text: string,
  isJudgedHost: (hostname: string) => boolean,
  host: string,
  kind: "ip" | "name" | "localhost",
): UrlVerdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse("The URL is not valid.");
  }
  if (!isJudgedHost(url.hostname)) return refuse("The URL is not valid.");
  return { ok: true, url, host, kind };
}

/** Null when an IP literal of this class may be used, else the refusal. */
function judgeAddress(kind: AddressClass, allowPrivateTargets: boolean): UrlVerdict | null {
  if (kind === "public" || (kind === "loopback" && allowPrivateTargets)) return null;
  return refuse(
    kind === "loopback"
      ? "URLs must not point at a loopback address."
      : "URLs must not point at a private, link-local or reserved address.",
  );
}

/** An IPv4 tail in an IPv6 literal must be a plain dotted quad (no leading zeros). */
function ipv6TailIsDottedQuad(address: string): boolean {
  const tail = address.slice(address.lastIndexOf(":") + 1);
  return !tail.includes(".") || DOTTED_QUAD.test(tail);
}

function sameBytes(a: number[], b: number[] | null): boolean {
  return b !== null && a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function refuse(problem: string): UrlVerdict {
  return { ok: false, problem };
}

// ---------------------------------------------------------------------------------------------------
// The send-time check: the judge, then the addresses a host name resolves to
// ---------------------------------------------------------------------------------------------------

/** One address a judged host name resolved to, in the form `node:net`'s look-up hands back. */
export interface JudgedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * A URL that passed the policy, with the addresses it was judged on: the request connects to one of these
 * and never resolves the name again (`judged_fetch.ts`). `host` stays the name for TLS and `Host`.
 */
export interface JudgedTarget {
  url: string;
  /** Lower case; an IPv6 literal without brackets. */
  host: string;
  addresses: JudgedAddress[];
}

export type TargetVerdict =
  | { verdict: "allowed"; target: JudgedTarget }
  /** Never to be sent there. */
  | { verdict: "refused"; reason: string }
  /** Could not be judged now (DNS failed or returned nothing); worth retrying later. */
  | { verdict: "unresolved"; reason: string };

export type ResolveAddresses = (host: string, type: "A" | "AAAA") => Promise<string[]>;

export interface OutboundPolicy {
  allowPrivateTargets: boolean;
  resolve: ResolveAddresses;
  /**
   * Which resolved addresses may be connected to. Default: `isAllowedAddress` with `allowPrivateTargets`.
   * Tests narrow it to tell two loopback addresses apart (one allowed, one standing for an inside address).
   */
  allowAddress?: (address: string) => boolean;
}

/**
 * The judge, then, for a host name, every A and AAAA address it resolves to right now (one resolution,
 * through `DNS_NAMESERVER` when set). Refused when any address is not allowed, so a name that points
 * inside, or whose answers mix public and inside addresses, is caught. The verdict carries the judged
 * addresses: the request connects to one of them (`judged_fetch.ts`), so a second answer (DNS rebinding)
 * is never asked for. Reasons never name an address.
 */
export async function checkOutboundUrl(url: string, policy: OutboundPolicy): Promise<TargetVerdict> {
  const judged = judgeUrl(url, policy.allowPrivateTargets);
  if (!judged.ok) return { verdict: "refused", reason: `target_not_allowed: ${judged.problem}` };
  const href = judged.url.href;
  if (judged.kind === "ip") {
    return {
      verdict: "allowed",
      target: { url: href, host: judged.host, addresses: [literal(judged.host)] },
    };
  }
  if (judged.kind === "localhost") {
    // Only with the local switch on: this machine, over IPv4 (what local receivers listen on).
    return {
      verdict: "allowed",
      target: { url: href, host: judged.host, addresses: [{ address: "127.0.0.1", family: 4 }] },
    };
  }

  let addresses: JudgedAddress[];
  try {
    const [v4, v6] = await Promise.all([
      resolveOrEmpty(policy.resolve, judged.host, "A"),
      resolveOrEmpty(policy.resolve, judged.host, "AAAA"),
    ]);
    addresses = [
      ...v4.map((address) => ({ address, family: 4 as const })),
      ...v6.map((address) => ({ address, family: 6 as const })),
    ];
  } catch {
    return { verdict: "unresolved", reason: "target_unresolved: the host name could not be resolved" };
  }
  if (addresses.length === 0) {
    return { verdict: "unresolved", reason: "target_unresolved: the host name has no A or AAAA record" };
  }
  const allowAddress = policy.allowAddress ??
    ((address: string) => isAllowedAddress(address, policy.allowPrivateTargets));
  if (addresses.some(({ address }) => !allowAddress(address))) {
    return {
      verdict: "refused",
      reason: "target_not_allowed: the host name resolves to a private, loopback or reserved address",
    };
  }
  return { verdict: "allowed", target: { url: href, host: judged.host, addresses } };
}

function literal(host: string): JudgedAddress {
  return { address: host, family: parseIpv4(host) ? 4 : 6 };
}

async function resolveOrEmpty(
  resolve: ResolveAddresses,
  host: string,
  type: "A" | "AAAA",
): Promise<string[]> {
  try {
    return await resolve(host, type);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------
// Webhook kinds: Slack and Discord endpoints only at their documented https hosts
// ---------------------------------------------------------------------------------------------------

export type WebhookKind = "generic" | "slack" | "discord";

export const WEBHOOK_KINDS: readonly WebhookKind[] = ["generic", "slack", "discord"];

const SLACK_PATH = /^\/services\/[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;
const DISCORD_HOSTS = new Set(["discord.com", "discordapp.com"]);
const DISCORD_PATH =
  /^\/api\/(v[0-9]{1,2}\/)?webhooks\/[0-9]{1,25}\/[A-Za-z0-9_-]{1,200}(\?[A-Za-z0-9_=&-]*)?$/;

/**
 * Null when the URL fits the endpoint's kind, else why not (the database's `private.webhook_kind_problem`,
 * word for word). Meant for a URL the judge accepted: `slack` must be `https://hooks.slack.com/services/…`,
 * `discord` `https://discord.com/api/webhooks/<id>/<token>` (or discordapp.com). The documented hosts are
 * required even locally; the sender swaps them for SLACK_WEBHOOK_BASE_URL / DISCORD_WEBHOOK_BASE_URL.
 */
export function webhookKindProblem(url: string, kind: string): string | null {
  if (!(WEBHOOK_KINDS as readonly string[]).includes(kind)) {
    return "The webhook kind must be generic, slack or discord.";
  }
  if (kind === "generic") return null;
  const scheme = url.match(/^([A-Za-z][A-Za-z0-9+.-]*):\/\//)?.[1]?.toLowerCase();
  const rest = scheme === undefined ? "" : url.slice(scheme.length + 3);
  const authority = rest.match(/^[^/?#]*/)![0].toLowerCase();
  const path = rest.slice(authority.length);
  if (kind === "slack") {
    return scheme === "https" && authority === "hooks.slack.com" && SLACK_PATH.test(path)
      ? null
      : "A Slack webhook URL must be Slack's incoming-webhook URL, https://hooks.slack.com/services/….";
  }
  return scheme === "https" && DISCORD_HOSTS.has(authority) && DISCORD_PATH.test(path)
    ? null
    : "A Discord webhook URL must be Discord's webhook URL, https://discord.com/api/webhooks/<id>/<token>.";
}

/** The save-time verdict for an endpoint: the judge, then the kind's host rule (`webhook_target_problem`). */
export function webhookTargetProblem(url: string, kind: string, allowPrivateTargets: boolean): string | null {
  const judged = judgeUrl(url, allowPrivateTargets);
  return judged.ok ? webhookKindProblem(url, kind) : judged.problem;
}
