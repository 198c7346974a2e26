/**
 * Why a name is unknown, in plain words, and what happens next: one sentence pair per reason code of the
 * API contract (`checkReason`, supabase/functions/_shared/contract/schemas.ts) that can leave a name
 * undecided, plus `not_checked_yet` (a name the poller has not checked yet). Pure
 * (tests/unit/app_radar.test.ts checks every contract reason has words).
 */

export interface UnknownExplanation {
  why: string;
  next: string;
}

const retry = "The service asks the registry again automatically; nothing to do.";

export const unknownReasons: Record<string, UnknownExplanation> = {
  not_checked_yet: {
    why: "Not checked yet: the name was added recently.",
    next: "The first check runs within minutes.",
  },
  rdap_timeout: { why: "The registry did not answer in time.", next: retry },
  rdap_server_error: { why: "The registry's server had an error.", next: retry },
  rdap_rate_limited: {
    why: "The registry asked us to slow down.",
    next: "We wait as long as it asked, then check again.",
  },
  rdap_invalid_response: { why: "The registry's answer could not be read.", next: retry },
  rdap_network_error: { why: "The registry could not be reached.", next: retry },
  rdap_host_backoff: {
    why: "The registry failed several times in a row, so we are giving it a rest.",
    next: "Checks resume after a pause.",
  },
  rdap_host_busy: {
    why: "The registry was busy with other checks.",
    next: "It is checked again in a moment.",
  },
  rdap_unexpected_status: { why: "The registry gave an answer we do not trust.", next: retry },
  rdap_target_not_allowed: {
    why: "The registry pointed us to an address we do not contact.",
    next: "We keep trying the registry's own server.",
  },
  rdap_bootstrap_unavailable: {
    why: "The list of registry servers could not be loaded.",
    next: "It is loaded again shortly and the name checked then.",
  },
  rdap_server_unverified: {
    why: 'The registry said "not found", but its server has not yet proved it answers correctly.',
    next: "We never call a name available on an unproven answer; the server is tested again daily.",
  },
  rdap_404_but_delegated: {
    why: 'The registry said "not found", but the name is still in DNS.',
    next: "We wait for both to agree before calling it available.",
  },
  rdap_not_found_dns_error: {
    why: 'The registry said "not found", but DNS could not confirm it.',
    next: "We check DNS again before calling it available.",
  },
  no_rdap_server_for_tld: {
    why: "This ending has no registry service we can ask.",
    next: "It stays unknown; watch it by hand at the registry.",
  },
  unsupported_zone: {
    why: "This zone's registry cannot be read by this service.",
    next: "It stays unknown; watch it by hand at the registry.",
  },
  whois_timeout: { why: "The registry's WHOIS server did not answer in time.", next: retry },
  whois_network_error: { why: "The registry's WHOIS server could not be reached.", next: retry },
  whois_host_busy: {
    why: "The registry's WHOIS server was busy with other checks.",
    next: "It is checked again in a moment.",
  },
  whois_host_backoff: {
    why: "The WHOIS server failed several times in a row, so we are giving it a rest.",
    next: "Checks resume after a pause.",
  },
  whois_rate_limited: {
    why: "The registry's WHOIS server asked us to slow down.",
    next: "We wait, then check again.",
  },
  whois_unrecognized: {
    why: "The WHOIS answer was not one we recognise.",
    next: "We check again; a name is never called available on an unclear answer.",
  },
  whois_server_unverified: {
    why: 'The WHOIS server said "not found", but has not yet proved it answers correctly.',
    next: "We never call a name available on an unproven answer; the server is tested again daily.",
  },
  whois_not_found_but_delegated: {
    why: 'The WHOIS server said "not found", but the name is still in DNS.',
    next: "We wait for both to agree before calling it available.",
  },
  whois_not_found_dns_error: {
    why: 'The WHOIS server said "not found", but DNS could not confirm it.',
    next: "We check DNS again before calling it available.",
  },
};

const fallback: UnknownExplanation = {
  why: "The last check could not decide.",
  next: "The service checks again automatically.",
};

/** The words for a reason code (an unrecognised one gets a general sentence). */
export function explainUnknown(reason: string | null | undefined): UnknownExplanation {
  return (reason && unknownReasons[reason]) || fallback;
}
