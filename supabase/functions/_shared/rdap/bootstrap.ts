/**
 * RDAP server discovery for domain names (RFC 9224): parsing IANA's `dns.json`, applying operator
 * overrides, and finding the servers for a name by the longest matching suffix of whole labels.
 */
import { isRecord } from "../encoding.ts";

export interface BootstrapRegistry {
  /** The file's `publication` time as ISO 8601, or null when it is missing or unreadable. */
  publication: string | null;
  /**
   * Suffix (lower case, no leading or trailing dot) → base URLs, https first, each ending in `/`.
   * An empty list means "known to have no RDAP server" (an operator override can say so).
   */
  services: Map<string, string[]>;
  /** Suffix → canary name set by an operator row (see `canaryFor`); absent: `nic.<suffix>`. */
  canaries?: Map<string, string>;
}

/**
 * One row of the server table (`public.rdap_server_overrides`). A null `baseUrl` disables RDAP for the
 * suffix. `precedence` "override" (the default) replaces IANA's entry; "fallback" (the shipped rows) is
 * used only where IANA's bootstrap does not list the suffix. `canaryName` is the name that proves the
 * suffix's server can say "found" (default `nic.<suffix>`); it applies whichever server is used.
 */
export interface ServerOverride {
  suffix: string;
  baseUrl: string | null;
  canaryName?: string | null;
  precedence?: "override" | "fallback";
}

/** The service for a name: the matched suffix, its base URLs (best first), and its canary name. */
export interface RdapService {
  suffix: string;
  baseUrls: string[];
  canaryName: string;
}

export class BootstrapFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BootstrapFormatError";
  }
}

/** Reads a decoded `dns.json`. Entries that are not well formed are skipped; a file with no services throws. */
export function parseBootstrap(document: unknown): BootstrapRegistry {
  if (!isRecord(document) || !Array.isArray(document.services)) {
    throw new BootstrapFormatError("bootstrap document has no services array");
  }
  const services = new Map<string, string[]>();
  for (const service of document.services) {
    if (!Array.isArray(service) || service.length < 2) continue;
    const [suffixes, urls] = service;
    if (!Array.isArray(suffixes) || !Array.isArray(urls)) continue;
    const baseUrls = orderBaseUrls(urls);
    if (baseUrls.length === 0) continue;
    for (const suffix of suffixes) {
      const normalised = normaliseSuffix(suffix);
      if (normalised !== null) services.set(normalised, baseUrls);
    }
  }
  if (services.size === 0) throw new BootstrapFormatError("bootstrap document lists no usable services");
  return { publication: parsePublication(document.publication), services };
}

/**
 * True when `candidate` should replace `current`: it is at least as new by `publication`.
 * A copy without a readable publication never replaces one that has it.
 */
export function isSameOrNewerPublication(candidate: string | null, current: string | null): boolean {
  if (current === null) return true;
  if (candidate === null) return false;
  return Date.parse(candidate) >= Date.parse(current);
}

/**
 * The registry with the server table applied: an "override" row replaces IANA's entry for the same suffix;
 * a "fallback" row fills a suffix IANA does not list (the bootstrap wins where it lists one).
 */
export function withOverrides(registry: BootstrapRegistry, overrides: ServerOverride[]): BootstrapRegistry {
  const services = new Map(registry.services);
  const canaries = new Map(registry.canaries ?? []);
  for (const override of overrides) {
    const suffix = normaliseSuffix(override.suffix);
    if (suffix === null) continue;
    const canary = normaliseSuffix(override.canaryName ?? null);
    if (canary !== null) canaries.set(suffix, canary);
    if ((override.precedence ?? "override") === "fallback" && registry.services.has(suffix)) continue;
    services.set(suffix, override.baseUrl === null ? [] : orderBaseUrls([override.baseUrl]));
  }
  return { publication: registry.publication, services, canaries };
}

/** The canary name for a suffix: the operator's, else `nic.<suffix>`. */
export function canaryFor(registry: BootstrapRegistry, suffix: string): string {
  return registry.canaries?.get(suffix) ?? `nic.${suffix}`;
}

/**
 * The base URLs for `domainName` from the longest suffix of whole labels that the registry lists
 * (`a.b.example.co.uk` tries `a.b.example.co.uk`, `b.example.co.uk`, …, `uk`). Null when no suffix is
 * listed; empty when the matching entry says there is no server.
 */
export function findRdapServers(registry: BootstrapRegistry, domainName: string): string[] | null {
  return findRdapService(registry, domainName)?.baseUrls ?? null;
}

/** Like `findRdapServers`, with the matched suffix and its canary name. */
export function findRdapService(registry: BootstrapRegistry, domainName: string): RdapService | null {
  const labels = domainName.toLowerCase().replace(/\.$/, "").split(".");
  for (let start = 0; start < labels.length; start++) {
    const suffix = labels.slice(start).join(".");
    const urls = registry.services.get(suffix);
    if (urls !== undefined) return { suffix, baseUrls: urls, canaryName: canaryFor(registry, suffix) };
  }
  return null;
}

/** Keeps http(s) URLs only, adds a missing trailing slash, removes duplicates, and puts https first. */
function orderBaseUrls(urls: unknown[]): string[] {
  const valid: string[] = [];
  for (const url of urls) {
    if (typeof url !== "string") continue;
    let parsed: URL;
    try {
      parsed = new URL(url.trim());
    } catch {
      continue;
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") continue;
    const href = parsed.href.endsWith("/") ? parsed.href : `${parsed.href}/`;
    if (!valid.includes(href)) valid.push(href);
  }
  const https = valid.filter((url) => url.startsWith("https:"));
  const http = valid.filter((url) => url.startsWith("http:"));
  return [...https, ...http];
}

function normaliseSuffix(suffix: unknown): string | null {
  if (typeof suffix !== "string") return null;
  const normalised = suffix.trim().toLowerCase().replace(/^\.+|\.+$/g, "");
  if (normalised === "" || /\s|\.\./.test(normalised)) return null;
  return normalised;
}

function parsePublication(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}
