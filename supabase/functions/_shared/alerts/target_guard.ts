/**
 * The send-time check of a webhook target: the URL rules, then, for a host name, every A and AAAA address
 * it resolves to right now (through `DNS_NAMESERVER` when set). Refused when any address is not allowed, so
 * a name that once pointed at a public address and now points inside (DNS rebinding) is caught.
 *
 * Limit: fetch resolves the name again when it connects; the two answers could differ within that
 * moment. Deno's fetch cannot be given a fixed address while keeping TLS checks on the name.
 */
import { parseNameserverAddress } from "../dns/nameservers.ts";
import { isAllowedAddress } from "./address_policy.ts";
import { judgeWebhookUrl } from "./webhook_url_rules.ts";

export type TargetVerdict =
  | { verdict: "allowed" }
  /** Never to be sent there (counts as a final failure). */
  | { verdict: "refused"; reason: string }
  /** Could not be judged now (DNS failed or returned nothing); worth retrying later. */
  | { verdict: "unresolved"; reason: string };

export type ResolveAddresses = (host: string, type: "A" | "AAAA") => Promise<string[]>;

export interface TargetGuardOptions {
  allowPrivateTargets: boolean;
  resolve: ResolveAddresses;
}

export async function checkWebhookTarget(url: string, options: TargetGuardOptions): Promise<TargetVerdict> {
  const judged = judgeWebhookUrl(url, options.allowPrivateTargets);
  if (!judged.ok) return { verdict: "refused", reason: `target_not_allowed: ${judged.problem}` };
  if (judged.kind !== "name") return { verdict: "allowed" };

  let addresses: string[];
  try {
    const [v4, v6] = await Promise.all([
      resolveOrEmpty(options.resolve, judged.host, "A"),
      resolveOrEmpty(options.resolve, judged.host, "AAAA"),
    ]);
    addresses = [...v4, ...v6];
  } catch {
    return { verdict: "unresolved", reason: "target_unresolved: the host name could not be resolved" };
  }
  if (addresses.length === 0) {
    return { verdict: "unresolved", reason: "target_unresolved: the host name has no A or AAAA record" };
  }
  if (addresses.some((address) => !isAllowedAddress(address, options.allowPrivateTargets))) {
    return {
      verdict: "refused",
      reason: "target_not_allowed: the host name resolves to a private, loopback or reserved address",
    };
  }
  return { verdict: "allowed" };
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

const RESOLVE_TIMEOUT_MS = 5_000;

/** A and AAAA look-ups with `Deno.resolveDns`, through `nameserver` (`host:port`) when given. */
export function denoResolver(nameserver: string | undefined): ResolveAddresses {
  const nameServer = nameserver === undefined ? undefined : parseNameserverAddress(nameserver) ?? undefined;
  return async (host, type) => {
    if (nameserver !== undefined && nameServer === undefined) {
      throw new Error("DNS_NAMESERVER is not host:port");
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), RESOLVE_TIMEOUT_MS);
    try {
      return await Deno.resolveDns(host, type, { nameServer, signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  };
}
