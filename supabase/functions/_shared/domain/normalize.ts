/**
 * Domain-name normalisation (docs/decisions.md): trimmed, lower case, no trailing dot, Unicode converted to
 * A-labels (UTS #46), and only registrable names (public suffix + one label) as the Public Suffix List's
 * ICANN section defines them. Pure: no I/O.
 */
import { domainToASCII, domainToUnicode } from "node:url";
import { parse } from "tldts";

export type NormalizedDomain =
  | { ok: true; domainName: string; unicodeName: string | null }
  | { ok: false; reason: string };

const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function invalid(reason: string): NormalizedDomain {
  return { ok: false, reason };
}

export function normalizeDomainName(input: unknown): NormalizedDomain {
  if (typeof input !== "string") return invalid("must be a string");
  let name = input.trim().toLowerCase();
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "") return invalid("is empty");
  if (name.length > 1000) return invalid("is too long to be a domain name");
  if (/[\s/\\:@?#%]/.test(name)) return invalid("is not a domain name (it contains spaces, a URL or a port)");

  let ascii: string;
  try {
    ascii = domainToASCII(name);
  } catch {
    // Deno 2.1's node:url throws (rather than answering "") for an A-label that is no valid punycode.
    return invalid("is not a valid domain name");
  }
  if (!ascii) return invalid("is not a valid domain name");
  if (ascii.length > 253) return invalid("is longer than 253 characters");
  const labels = ascii.split(".");
  if (labels.length < 2) return invalid("is a bare top-level domain, not a registrable name");
  if (!labels.every((part) => label.test(part))) {
    return invalid(
      "has a label that is empty, too long, or uses characters other than letters, digits and hyphens",
    );
  }

  const parsed = parse(ascii, { allowPrivateDomains: false });
  if (parsed.isIp) return invalid("is an IP address, not a domain name");
  if (!parsed.isIcann || !parsed.publicSuffix) return invalid("does not end in a known top-level domain");
  if (!parsed.domain) return invalid(`is a public suffix (${parsed.publicSuffix}), not a registrable name`);
  if (parsed.domain !== ascii) {
    return invalid(`is a subdomain; only registrable names can be watched (try ${parsed.domain})`);
  }

  const unicode = domainToUnicode(ascii);
  return { ok: true, domainName: ascii, unicodeName: unicode && unicode !== ascii ? unicode : null };
}
