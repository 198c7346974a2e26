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
  /** When the last check got an answer from the registry that could not be read; null otherwise. */
  registry_unreadable_at?: string | null;
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

// Organizations' watchlists (issue 42, docs/organizations.md) -------------------------------------------

/** A member as the other members see them (display name, or the address before the @). */
export interface MemberLabel {
  id: string;
  name: string | null;
}

export interface TeamClaim {
  user_id: string;
  name: string | null;
  claimed_at: string;
}

/** A row of organization_watchlist_page: the personal row's fields, who added it and its open claim. */
export interface TeamDomain extends WatchedDomain {
  added_by: MemberLabel | null;
  claim: TeamClaim | null;
}

export interface TeamPage {
  total: number;
  used: number;
  quota: number;
  domains: TeamDomain[];
}

export interface ActivityEntry {
  id: number;
  created_at: string;
  actor_name: string | null;
  action: string;
  domain_name: string | null;
  subject_name: string | null;
  detail: Record<string, unknown>;
}

export interface TeamWebhook {
  id: string;
  kind: string;
  description: string | null;
  url_masked: string;
  enabled: boolean;
  event_types: string[];
}

/** One email alert channel (list_email_channels): the account's own address, or an extra one, masked. */
export interface EmailChannel {
  id: string;
  is_account: boolean;
  /** Null for the account's own address (the app shows the session's). */
  address_masked: string | null;
  status: "pending" | "active" | "stopped";
  stopped_reason: "unsubscribed" | "bounced" | null;
  enabled: boolean;
  event_types: string[];
  expiring_days: number[];
  permanent_failures: number;
  confirmation_sent_at: string | null;
  confirmation_expires_at: string | null;
  confirmed_at: string | null;
  stopped_at: string | null;
  created_at: string;
}

/** An organization's email addresses (list_organization_email_addresses), masked for every member. */
export interface TeamEmailChannels {
  channels: EmailChannel[];
  /** Team addresses the owner's plan allows (plans.extra_alert_emails). */
  allowed: number;
}

/** An organization's Telegram group (organization_telegram_group): never its chat ID. */
export interface TeamTelegramGroup {
  id: string;
  enabled: boolean;
  event_types: string[];
  expiring_days: number[];
  linked_by: string | null;
  linked_at: string;
}

export interface EmailChannels {
  channels: EmailChannel[];
  /** Extra addresses the plan allows (Free 0, Pro and higher 5). */
  extra_allowed: number;
}

export interface EmailDelivery {
  id: string;
  event_type: string;
  domain_name: string | null;
  status: string;
  created_at: string;
  attempts: { attempted_at: string; outcome: string; smtp_code: number | null; error: string | null }[];
}

export interface EmailDeliveryPage {
  deliveries: EmailDelivery[];
  next_cursor: string | null;
}
