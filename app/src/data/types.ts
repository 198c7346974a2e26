/** The shapes the server answers with (app-contract: account_overview, watchlist_page, domain_detail). */
export interface AccountOverview {
  plan: string;
  api_access: boolean;
  watchlist_quota: number;
  watchlist_used: number;
  daily_request_limit: number | null;
  requests_today: number;
  requests_reset_at: string;
  webhooks_allowed: boolean;
  display_name: string | null;
}

export interface WatchedDomain {
  domain_name: string;
  unicode_name: string | null;
  status: string;
  added_at: string;
  last_checked_at: string | null;
  status_changed_at: string | null;
  expires_at: string | null;
  registrar: string | null;
  predicted_drop_at: string | null;
  prediction_basis: string | null;
  /** While unknown: the poller's last check reason (the contract's checkReason), or `not_checked_yet`. */
  unknown_reason: string | null;
  /** While unknown: when the poller checks it next. */
  next_check_at: string | null;
  tags: string[];
  note: string | null;
}

export interface WatchlistPage {
  total: number;
  domains: WatchedDomain[];
  /** The keyset cursor of the next page (watchlist_page's `p_after`), null on the last page. */
  next_cursor: string | null;
}

/** The radar's counts (watchlist_summary); each key is also a watchlist_page `focus`. */
export interface WatchlistSummary {
  available_now: number;
  dropping_within_7_days: number;
  expiring_within_30_days: number;
  unknown: number;
  total: number;
}

export type RadarFocus = Exclude<keyof WatchlistSummary, "total">;
export type RadarOrder = "urgency" | "name" | "expiry" | "added";

/** check-now's answer: the API's live check result. */
export interface CheckNowResult {
  domain_name: string;
  status: string;
  available: boolean | null;
  checked_at: string;
  reason: string;
  retry_after_seconds?: number;
  /** From RateLimit-Remaining: what is left of today's allowance (null: unlimited). */
  checks_left_today?: number | null;
  [key: string]: unknown;
}

export interface AddResult {
  added: number;
  skipped_duplicates: number;
  rejected_over_limit: number;
  remaining_quota: number;
  rejected_names: string[];
}

export interface StatusChange {
  previous_status: string | null;
  status: string;
  changed_at: string;
  source: string;
  evidence: Record<string, unknown> | null;
}

export interface Delivery {
  channel: string;
  status: string;
  attempts: number;
  last_attempt_at: string | null;
  delivered_at: string | null;
  last_response_status: number | null;
}

export interface DomainDetail {
  domain: WatchedDomain;
  history: StatusChange[];
  alerts: { event_id: string; type: string; created_at: string; deliveries: Delivery[] }[];
}

export interface NotificationSettings {
  telegram_configured: boolean;
  telegram_enabled: boolean;
  telegram_event_types: string[];
  telegram_linked_at: string | null;
  telegram_expiring_days: number[] | null;
}

export interface Webhook {
  id: string;
  description: string | null;
  enabled: boolean;
  event_types: string[];
  kind: string;
  secret_configured: boolean;
  url_masked: string;
  created_at: string;
  expiring_days: number[] | null;
}

export interface WebhookDelivery {
  id: string;
  event_type?: string;
  status: string;
  created_at: string;
  attempts?: { outcome: string; http_status: number | null; attempted_at: string; error?: string | null }[];
  [key: string]: unknown;
}

export interface WebhookDeliveryPage {
  deliveries: WebhookDelivery[];
  next_cursor: string | null;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface Organization {
  id: string;
  name: string;
  created_at: string;
  role: string;
}

export interface Member {
  user_id: string;
  role: string;
  created_at: string;
  email: string | null;
  display_name: string | null;
}

export interface Invitation {
  id: string;
  email: string;
  role: string;
  status: string;
  created_at: string;
  expires_at: string;
  emailed_at: string | null;
}
