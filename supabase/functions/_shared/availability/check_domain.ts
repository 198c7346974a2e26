/**
 * One availability check of one name: find the registry's RDAP server, ask it and DNS in parallel,
 * classify, and build the result the API returns. No cache and no database writes here: the live check
 * adds those, and the poller calls `checkDomain` directly.
 */
import { type CheckReason, classify, type RegistryAnswer } from "./classify.ts";
import type { CheckResult, RdapSummary, WhoisSummary } from "../contract/schemas.ts";
import {
  BootstrapUnavailableError,
  type ServerDirectory,
  sharedBootstrapStore,
} from "../rdap/bootstrap_store.ts";
import { createRdapClient, type LookupOptions, type RdapClient, type RdapLookup } from "../rdap/client.ts";
import type { RdapDomain } from "../rdap/domain_response.ts";
import type { RdapService } from "../rdap/bootstrap.ts";
import { sharedHostLimiter } from "../rdap/host_limiter.ts";
import {
  configuredNsOptions,
  defaultNsLookup,
  type DnsOutcome,
  resolverEvidenceName,
  resolverFor,
} from "../dns/nameservers.ts";
import { databaseServerProofStore, serverProofState, type ServerProofStore } from "./server_proof.ts";
import { type AvailabilityEvidence, availabilityEvidence, type CanaryProof } from "./evidence.ts";
import { config } from "../config.ts";
import { denoResolver } from "../net/dns_resolver.ts";
import {
  entrySuffix,
  sharedWhoisDirectory,
  unsupportedZone,
  type WhoisDirectory,
  type WhoisEntry,
} from "../whois/server_table.ts";
import { answerOfFailure, checkWhois, type WhoisCheckDeps } from "./whois_check.ts";
import { createWhoisClient } from "../whois/client.ts";
import { sharedWhoisLimiter } from "../rdap/host_limiter.ts";

/** The result the API returns (`GET /check/{domain}`, `check_domain`): the contract's `checkResult`. */
export type { CheckResult, RdapSummary, WhoisSummary };

export interface CheckDeps {
  servers: ServerDirectory;
  rdap: RdapClient;
  dns: (domainName: string) => Promise<DnsOutcome>;
  /** Canary proofs: a 404 counts only from a proven server. */
  proof: ServerProofStore;
  /** The WHOIS route for TLDs without RDAP; absent: such names have no route (`no_rdap_server_for_tld`). */
  whois?: { directory: WhoisDirectory; check: WhoisCheckDeps };
  /** The resolver `dns` asks, as the evidence names it (`resolverEvidenceName`). */
  resolver?: string;
  now?: () => Date;
}

/**
 * A check as the poller and the live check record it: the API's result, and for an `available` result the
 * evidence that made it so (carried to the `domain.available` alerts).
 */
export interface CheckedDomain {
  result: CheckResult;
  evidence: AvailabilityEvidence | null;
  /**
   * Set when the registry was not asked: this service's politeness refused the turn (host busy beyond the
   * wait, paused, backing off). A refusal is not a check: the poller records nothing and counts no failure,
   * and a live check neither records nor caches it. `until`: the host's pause end (epoch ms), when known.
   */
  refusal?: Refusal;
}

export interface Refusal {
  reason: CheckReason;
  until: number | null;
}

export interface CheckOptions {
  /** How long a request may wait for its turn at an RDAP host (live checks bound it; the poller need not). */
  maxHostWaitMs?: number;
  /** Its RDAP requests go before this process's other waiters for the host (around a predicted drop). */
  urgent?: boolean;
  /**
   * Not urgent: answer `rdap_host_busy` at once when this many of this process's requests already wait for
   * the host (the poller hands the name back and checks others meanwhile).
   */
  maxHostQueue?: number;
  /** How long a WHOIS query may wait for its host's turn (default `maxHostWaitMs`). */
  maxWhoisHostWaitMs?: number;
  /**
   * A live check for this account: held to the live checks' share of each host (docs/rate-limits.md), its
   * failures never back a host off, and an unreadable registry with a delegation in DNS is `registered`
   * (`dns_delegated`, availability/classify.ts).
   */
  liveAccount?: string;
}

/** The host limiter's wait for each RDAP request of a check. */
function hostWait(options: CheckOptions): LookupOptions {
  return {
    maxWaitMs: options.maxHostWaitMs,
    urgent: options.urgent,
    maxQueued: options.maxHostQueue,
    liveAccount: options.liveAccount,
  };
}

/** The route's answer; `proof`: the server's canary proof behind a trusted "not found". */
type RegistryLookup = { server: string; answer: RegistryAnswer; proof?: CanaryProof };

/** Checks `domainName` (ASCII, lower case, already validated). */
export async function checkDomain(
  deps: CheckDeps,
  domainName: string,
  unicodeName: string | null = null,
  options: CheckOptions = {},
): Promise<CheckResult> {
  return (await checkDomainWithEvidence(deps, domainName, unicodeName, options)).result;
}

/** `checkDomain`, with the evidence behind an `available` result. */
export async function checkDomainWithEvidence(
  deps: CheckDeps,
  domainName: string,
  unicodeName: string | null = null,
  options: CheckOptions = {},
): Promise<CheckedDomain> {
  const [registry, dns] = await Promise.all([
    askRegistry(deps, domainName, options),
    deps.dns(domainName),
  ]);
  const { available, status, reason } = classify(registry.answer, dns, {
    delegationDecides: options.liveAccount !== undefined,
  });
  const checkedAt = (deps.now?.() ?? new Date()).toISOString();
  const result: CheckResult = {
    domain_name: domainName,
    unicode_name: unicodeName !== null && unicodeName !== domainName ? unicodeName : null,
    available,
    status,
    checked_at: checkedAt,
    rdap: summarise(registry),
    whois: summariseWhois(registry),
    dns: {
      delegated: dns.outcome === "delegated" ? true : dns.outcome === "not_delegated" ? false : null,
      nameservers: dns.outcome === "delegated" ? dns.nameservers : [],
      rcode: dns.rcode,
    },
    reason,
  };
  const refusal = refusalOf(registry.answer);
  return { result, evidence: evidenceFor(deps, registry, dns, result), ...(refusal ? { refusal } : {}) };
}

/** The registry answer's refusal (nothing was asked), if it is one. */
function refusalOf(answer: RegistryAnswer): Refusal | null {
  if (answer.outcome === "refused") {
    return { reason: answer.reason, until: answer.retryAt === null ? null : Date.parse(answer.retryAt) };
  }
  if (answer.outcome === "whois" && answer.whois.kind === "refused") {
    return { reason: answer.whois.reason, until: answer.whois.until };
  }
  return null;
}

/** The evidence of an `available` result, from the route that said "not found" (RDAP or WHOIS). */
function evidenceFor(
  deps: CheckDeps,
  registry: RegistryLookup,
  dns: DnsOutcome,
  result: CheckResult,
): AvailabilityEvidence | null {
  if (result.status !== "available" || dns.outcome !== "not_delegated") return null;
  const { answer, proof } = registry;
  if (proof === undefined) return null;
  const undelegated = { rcode: dns.rcode, resolver: deps.resolver ?? "unnamed resolver" };
  if (answer.outcome === "not_found") {
    return availabilityEvidence(
      { source: "rdap", server: registry.server, httpStatus: answer.httpStatus, proof },
      undelegated,
      result.checked_at,
    );
  }
  const match = answer.outcome === "whois" && answer.whois.kind === "read"
    ? answer.whois.reading.notFoundMatch
    : undefined;
  if (match === undefined) return null;
  return availabilityEvidence(
    { source: "whois", server: registry.server, match, proof },
    undelegated,
    result.checked_at,
  );
}

async function askRegistry(
  deps: CheckDeps,
  domainName: string,
  options: CheckOptions,
): Promise<RegistryLookup> {
  let service: RdapService | null;
  try {
    service = await deps.servers.serviceFor(domainName);
  } catch (error) {
    if (error instanceof BootstrapUnavailableError) {
      return { server: "", answer: { outcome: "bootstrap_unavailable" } };
    }
    throw error;
  }
  if (service === null || service.baseUrls.length === 0 || await zoneHasOwnRow(deps, domainName, service)) {
    return await askWhois(deps, domainName, options);
  }
  const server = service.baseUrls[0];
  const lookup = await deps.rdap.lookupDomain(server, domainName, hostWait(options));
  if (lookup.outcome === "not_found") {
    const key = { server, suffix: service.suffix, canaryName: service.canaryName };
    const proof = await serverProofState(deps.proof, deps.rdap, key, {
      maxHostWaitMs: options.maxHostWaitMs,
      urgent: options.urgent,
    });
    if (!proof.proven) return { server, answer: { outcome: "unverified", url: lookup.url, httpStatus: 404 } };
    return { server, answer: lookup, proof: { canaryName: service.canaryName, provedAt: proof.provedAt } };
  }
  if (lookup.outcome !== "found") return { server, answer: lookup };
  return { server, answer: await withRegistrarDetails(deps.rdap, lookup, options) };
}

/**
 * A name under a zone with its own WHOIS row (e.g. `example.edu.cn`) is never read under the TLD's RDAP
 * server, which does not hold the zone (docs/whois.md "Zones with their own servers"): the row wins when its
 * suffix is longer than the RDAP service's. A table that cannot be read leaves RDAP's route as it was.
 */
async function zoneHasOwnRow(deps: CheckDeps, domainName: string, service: RdapService): Promise<boolean> {
  let entry: WhoisEntry | null | undefined;
  try {
    entry = await deps.whois?.directory.entryFor(domainName);
  } catch {
    return false;
  }
  if (!entry) return false;
  return entrySuffix(entry).split(".").length > service.suffix.split(".").length;
}

/**
 * No RDAP route (or a zone with its own row): the WHOIS table's route for the name, if it has one (RDAP
 * always wins where it exists for the name's zone). A zone listed without a usable server is
 * `unsupported_zone`.
 */
async function askWhois(deps: CheckDeps, domainName: string, options: CheckOptions): Promise<RegistryLookup> {
  const entry = await deps.whois?.directory.entryFor(domainName);
  const zone = unsupportedZone(entry ?? null);
  if (zone !== null) return { server: "", answer: { outcome: "unsupported_zone", zone } };
  if (!deps.whois || !entry || entry.kind !== "route") {
    return { server: "", answer: { outcome: "no_server" } };
  }
  const { route } = entry;
  const whois = await checkWhois(deps.whois.check, route, domainName, {
    ...hostWait(options),
    maxWaitMs: options.maxWhoisHostWaitMs ?? options.maxHostWaitMs,
  });
  const proof = whois.kind === "read" ? whois.proof : undefined;
  return { server: route.server, answer: { outcome: "whois", server: route.server, whois }, proof };
}

/**
 * Fills a thin registry answer's missing registrar name or expiry from the registrar's own RDAP record.
 * Only missing fields are filled: the registry's data always wins, and the registrar never decides status.
 */
async function withRegistrarDetails(
  rdap: RdapClient,
  lookup: Extract<RdapLookup, { outcome: "found" }>,
  options: CheckOptions,
): Promise<RdapLookup> {
  const registry = lookup.domain;
  const referral = registry.registrarRdapUrl;
  if (referral === null || (registry.registrar !== null && registry.expirationDate !== null)) return lookup;
  if (new URL(referral).host === new URL(lookup.url).host) return lookup;

  const registrarAnswer = await rdap.lookupUrl(referral, hostWait(options));
  if (registrarAnswer.outcome !== "found") return lookup;
  const registrar = registrarAnswer.domain;
  const enriched: RdapDomain = {
    ...registry,
    registrar: registry.registrar ?? registrar.registrar,
    expirationDate: registry.expirationDate ?? registrar.expirationDate,
  };
  return { ...lookup, domain: enriched };
}

function summarise(registry: RegistryLookup): RdapSummary | null {
  const { server, answer } = registry;
  if (
    answer.outcome === "no_server" || answer.outcome === "bootstrap_unavailable" ||
    answer.outcome === "unsupported_zone"
  ) return null;
  if (answer.outcome === "whois") return null;
  const domain = answer.outcome === "found" ? answer.domain : null;
  return {
    server,
    http_status: answer.httpStatus,
    status: domain?.status ?? [],
    registrar: domain?.registrar ?? null,
    registration_date: domain?.registrationDate ?? null,
    expiration_date: domain?.expirationDate ?? null,
    last_changed_date: domain?.lastChangedDate ?? null,
  };
}

function summariseWhois(registry: RegistryLookup): WhoisSummary | null {
  const { answer } = registry;
  if (answer.outcome !== "whois") return null;
  const { whois } = answer;
  const reading = whois.kind === "read" ? whois.reading : null;
  return {
    server: answer.server,
    answer: whois.kind === "unverified"
      ? "not_found"
      : whois.kind === "failed"
      ? answerOfFailure(whois.reason)
      : whois.kind === "refused"
      ? null
      : whois.reading.answer,
    statuses: reading?.statuses ?? [],
    registrar: reading?.registrar ?? null,
    expiration_date: reading?.expirationDate ?? null,
  };
}

/**
 * Dependencies from the environment: the shared bootstrap store and host limiter, the configured DNS
 * resolver (`DNS_NAMESERVER`, else `DNS_DOH_URL`), the canary proofs in the database, and
 * `WEBHOOK_ALLOW_PRIVATE_TARGETS` for the URL judge.
 */
export function defaultCheckDeps(): CheckDeps {
  const servers = sharedBootstrapStore();
  const proof = databaseServerProofStore();
  const whoisLimiter = sharedWhoisLimiter();
  return {
    servers,
    rdap: createRdapClient({
      limiter: sharedHostLimiter(),
      timeoutMs: config.rdapTimeoutMs(),
      outbound: {
        allowPrivateTargets: config.webhookAllowPrivateTargets(),
        resolve: denoResolver(config.dnsNameserver()),
        isListedServer: (url) => servers.isListedServer(url),
      },
    }),
    dns: defaultNsLookup(),
    resolver: resolverEvidenceName(resolverFor(configuredNsOptions())),
    proof,
    whois: {
      directory: sharedWhoisDirectory(),
      check: {
        client: createWhoisClient({
          limiter: whoisLimiter,
          connectTimeoutMs: WHOIS_CONNECT_TIMEOUT_MS,
          readTimeoutMs: config.rdapTimeoutMs(),
          serverOverride: config.whoisServer,
          outbound: {
            allowPrivateTargets: config.webhookAllowPrivateTargets(),
            resolve: denoResolver(config.dnsNameserver()),
          },
        }),
        limiter: whoisLimiter,
        proof,
      },
    },
  };
}

/** How long a WHOIS connection may take to open (the answer then has RDAP_TIMEOUT_MS). */
const WHOIS_CONNECT_TIMEOUT_MS = 5_000;
