/**
 * The app's one data layer: every supabase-js call (Auth, the data API, the edge functions) is here, and
 * each returns plain data or throws an AppError (./errors.ts) that says what to do next. Screens never
 * touch supabase-js. The database decides every rule (quota, plan, roles, validation); this module only
 * carries requests and answers.
 */
import { createClient, type Session, type SupabaseClient } from "@supabase/supabase-js";
import type { AppConfig } from "../config.ts";
import { type AppError, describeFailure } from "./errors.ts";
import { domainInput } from "./domain_input.ts";
import { localPath } from "./auth_links.ts";
import type {
  AccountOverview,
  AddResult,
  ApiKey,
  CheckNowResult,
  DomainDetail,
  EmailChannel,
  EmailChannels,
  EmailDeliveryPage,
  Invitation,
  Member,
  NotificationSettings,
  Organization,
  RadarFocus,
  RadarOrder,
  WatchlistPage,
  WatchlistSummary,
  Webhook,
  WebhookDeliveryPage,
} from "./types.ts";
import type { ActivityEntry, TeamEmailChannels, TeamPage, TeamTelegramGroup, TeamWebhook } from "./types.ts";

let client: SupabaseClient;
let config: AppConfig;

export function connect(appConfig: AppConfig): void {
  config = appConfig;
  // PKCE: a mail's link comes back with `?code=`, which only the browser that asked for the mail (it holds
  // the code verifier) can trade for a session; a crafted link cannot sign anyone into another account.
  client = createClient(appConfig.supabaseUrl, appConfig.publishableKey, {
    auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true, flowType: "pkce" },
  });
}

export function appConfig(): AppConfig {
  return config;
}

export class RequestFailed extends Error {
  constructor(readonly failure: AppError) {
    super(failure.message);
  }
}

function isNetworkError(error: unknown): boolean {
  const text = String((error as { message?: string })?.message ?? error);
  return /Failed to fetch|NetworkError|fetch failed|Load failed|AuthRetryableFetchError/i.test(text) ||
    (error as { name?: string })?.name === "AuthRetryableFetchError";
}

function fail(error: unknown, status?: number): never {
  if (error instanceof RequestFailed) throw error;
  const e = (error ?? {}) as Record<string, unknown>;
  if (isNetworkError(error) || (status === 0)) throw new RequestFailed(describeFailure({ network: true }));
  throw new RequestFailed(describeFailure({
    status: (e.status as number | undefined) ?? status,
    code: (e.code as string | undefined) ?? undefined,
    message: e.message as string | undefined,
    details: e.details as string | undefined,
    hint: e.hint as string | undefined,
  }));
}

/** Runs one supabase-js call and hands back its data, or throws its failure told. */
async function run<T>(call: PromiseLike<{ data?: unknown; error: unknown; status?: number }>): Promise<T> {
  let answer;
  try {
    answer = await call;
  } catch (error) {
    fail(error);
  }
  if (answer.error) fail(answer.error, answer.status);
  return answer.data as T;
}

// ---------------------------------------------------------------- Auth

export async function currentSession(): Promise<Session | null> {
  const { data } = await client.auth.getSession();
  return data.session;
}

export function onSessionChange(listener: (session: Session | null, event: string) => void): () => void {
  const { data } = client.auth.onAuthStateChange((event, session) => listener(session, event));
  return () => data.subscription.unsubscribe();
}

/** Signs up; `confirm` is true when Auth sent a confirmation mail instead of a session. */
export async function signUp(email: string, password: string, next = "/"): Promise<{ confirm: boolean }> {
  const data = await run<{ session: Session | null }>(
    client.auth.signUp({
      email,
      password,
      options: { emailRedirectTo: `${location.origin}${localPath(next)}` },
    }),
  );
  return { confirm: !data.session };
}

export async function signIn(email: string, password: string): Promise<void> {
  await run(client.auth.signInWithPassword({ email, password }));
}

export async function sendMagicLink(email: string, next = "/"): Promise<void> {
  await run(
    client.auth.signInWithOtp({
      email,
      options: { emailRedirectTo: `${location.origin}${localPath(next)}` },
    }),
  );
}

export async function sendPasswordReset(email: string): Promise<void> {
  await run(client.auth.resetPasswordForEmail(email, { redirectTo: `${location.origin}/reset-password` }));
}

/**
 * An invitation's link: Auth sends it from the server (the inviter's request), so no browser holds a PKCE
 * verifier for it and GoTrue answers it the implicit way, with the session in the fragment
 * (`#access_token=…&type=invite`), which supabase-js in PKCE mode leaves alone. Only the accept page takes
 * it, only `type=invite`, only while signed out, and the page then says whose account it is before anything
 * is accepted. The fragment is removed first. True when it signed in.
 */
export async function sessionFromInvitationLink(): Promise<boolean> {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const access_token = fragment.get("access_token");
  const refresh_token = fragment.get("refresh_token");
  if (fragment.get("type") !== "invite" || !access_token || !refresh_token) return false;
  history.replaceState(history.state, "", location.pathname + location.search);
  if (await currentSession()) return false;
  await run(client.auth.setSession({ access_token, refresh_token }));
  return true;
}

/**
 * Sets a new password. Supabase Auth asks for the current one (the project requires it, docs/deploy.md)
 * except in a session opened from a password mail's link or code.
 */
export async function setPassword(password: string, currentPassword?: string): Promise<void> {
  await run(
    client.auth.updateUser(currentPassword ? { password, current_password: currentPassword } : { password }),
  );
}

export async function signOut(): Promise<void> {
  await run(client.auth.signOut());
}

// ---------------------------------------------------------------- Account

export function accountOverview(): Promise<AccountOverview> {
  return run(client.rpc("account_overview"));
}

/** The signed-in user's own profile row (the policies also show organization co-members' rows: filter by id). */
export async function profile(userId: string): Promise<
  { email: string | null; display_name: string | null; created_at: string } | null
> {
  return await run(
    client.from("profiles").select("email, display_name, created_at").eq("id", userId).maybeSingle(),
  );
}

export async function setDisplayName(userId: string, name: string): Promise<void> {
  await run(client.from("profiles").update({ display_name: name || null }).eq("id", userId));
}

/** export-account: the account as JSON, downloaded as the file the function names. */
export async function exportAccount(): Promise<{ blob: Blob; filename: string }> {
  const session = await currentSession();
  let response: Response;
  try {
    response = await fetch(`${config.functionsUrl}/export-account`, {
      method: "POST",
      headers: { authorization: `Bearer ${session?.access_token ?? ""}`, apikey: config.publishableKey },
    });
  } catch (error) {
    fail(error);
  }
  if (!response.ok) await functionFailure(response);
  const disposition = response.headers.get("content-disposition") ?? "";
  const filename = disposition.match(/filename="([^"]+)"/)?.[1] ?? "domain-watchlist-export.json";
  return { blob: await response.blob(), filename };
}

async function functionFailure(response: Response): Promise<never> {
  const body = await response.json().catch(() => ({})) as Record<string, unknown>;
  const error = body.error as Record<string, unknown> | string | undefined;
  throw new RequestFailed(describeFailure({
    status: response.status,
    code: typeof error === "object" ? String(error?.code ?? "") : error,
    // The functions answer {"error": "<code>", "message": "<sentence>"}: the sentence is what to show.
    message: typeof error === "object"
      ? String(error?.message ?? "")
      : String(body.message ?? body.msg ?? error ?? `HTTP ${response.status}`),
    resetAt: (body.reset_at as string | undefined) ?? undefined,
  }));
}

// ---------------------------------------------------------------- Watchlist

export interface WatchlistQuery {
  status?: string;
  search?: string;
  limit: number;
  order?: RadarOrder;
  /** The previous page's `next_cursor` (keyset paging). */
  after?: string | null;
  focus?: RadarFocus | null;
  tag?: string | null;
}

export function watchlistPage(query: WatchlistQuery): Promise<WatchlistPage> {
  return run(client.rpc("watchlist_page", {
    p_status: query.status || null,
    p_search: query.search || null,
    p_limit: query.limit,
    p_order: query.order ?? "urgency",
    p_after: query.after ?? null,
    p_focus: query.focus ?? null,
    p_tag: query.tag || null,
  }));
}

export function watchlistSummary(): Promise<WatchlistSummary> {
  return run(client.rpc("watchlist_summary"));
}

/**
 * add_watchlist_domains, and which of the names the quota turned away (the names that are not on the
 * watchlist after the call), so the box can keep them.
 */
export async function addDomains(typed: string[]): Promise<AddResult> {
  // Sent in the stored form (lower case, A-labels); what the quota turns away goes back as it was typed.
  const names = typed.map(domainInput);
  const rows = await run<AddResult[]>(client.rpc("add_watchlist_domains", { p_domain_names: names }));
  const result = { ...rows[0], rejected_names: [] as string[] };
  if (result.rejected_over_limit > 0) {
    const watched = new Set<string>();
    for (let i = 0; i < names.length; i += 100) {
      const chunk = names.slice(i, i + 100);
      const found = await run<{ domain_name: string }[]>(
        client.from("watchlist_entries").select("domain_name").in("domain_name", chunk).is(
          "deleted_at",
          null,
        ),
      );
      for (const row of found) watched.add(row.domain_name);
    }
    result.rejected_names = [...new Set(typed.filter((_, i) => !watched.has(names[i])))];
  }
  return result;
}

export async function removeDomain(name: string): Promise<void> {
  await run(client.rpc("remove_watchlist_domain", { p_domain_name: name }));
}

/** Every watched name in name order (keyset pages of 200), for the CSV export. */
export async function wholeWatchlist(): Promise<WatchlistPage["domains"]> {
  const all: WatchlistPage["domains"] = [];
  let after: string | null = null;
  do {
    const page: WatchlistPage = await watchlistPage({ limit: 200, order: "name", after });
    all.push(...page.domains);
    after = page.next_cursor;
  } while (after);
  return all;
}

/** Tags and/or a note for names on the watchlist (set_watchlist_details; pages of 500). */
export async function setDetails(
  items: { domain_name: string; tags?: string[]; note?: string | null }[],
): Promise<{ updated: number; not_watched: string[] }> {
  const total = { updated: 0, not_watched: [] as string[] };
  for (let i = 0; i < items.length; i += 500) {
    const answer = await run<{ updated: number; not_watched: string[] }>(
      client.rpc("set_watchlist_details", { p_items: items.slice(i, i + 500) }),
    );
    total.updated += answer.updated;
    total.not_watched.push(...answer.not_watched);
  }
  return total;
}

/** Adds and/or removes tags on several names at once (tag_watchlist_domains); how many changed. */
export function tagDomains(names: string[], add: string[], remove: string[] = []): Promise<number> {
  return run(client.rpc("tag_watchlist_domains", { p_domain_names: names, p_add: add, p_remove: remove }));
}

/**
 * check-now: a live check from the app, within the plan's daily allowance. A 429 throws with the reset
 * time; a busy registry answers `unknown` with `retry_after_seconds`.
 */
export async function checkNow(name: string): Promise<CheckNowResult> {
  const session = await currentSession();
  let response: Response;
  try {
    response = await fetch(`${config.functionsUrl}/check-now`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${session?.access_token ?? ""}`,
        apikey: config.publishableKey,
        "content-type": "application/json",
      },
      body: JSON.stringify({ domain: name }),
    });
  } catch (error) {
    fail(error);
  }
  if (!response.ok) await functionFailure(response);
  const remaining = response.headers.get("ratelimit-remaining");
  return {
    ...await response.json(),
    checks_left_today: remaining === null ? null : Number(remaining),
  };
}

export function domainDetail(name: string): Promise<DomainDetail> {
  return run(client.rpc("domain_detail", { p_domain_name: name }));
}

// ---------------------------------------------------------------- Alerts

export function alertEventTypes(): Promise<string[]> {
  return run(client.rpc("alert_event_types"));
}

export async function notificationSettings(): Promise<NotificationSettings | null> {
  return await run(
    client.from("notification_settings").select(
      "telegram_configured, telegram_enabled, telegram_event_types, telegram_linked_at, telegram_expiring_days",
    ).maybeSingle(),
  );
}

export function createTelegramLink(): Promise<{ url: string; expires_at: string }> {
  return run(client.rpc("create_telegram_link"));
}

export async function unlinkTelegram(userId: string): Promise<void> {
  await run(client.from("notification_settings").delete().eq("user_id", userId));
}

export async function setTelegramEnabled(enabled: boolean): Promise<void> {
  await run(client.rpc("set_telegram_enabled", { p_enabled: enabled }));
}

export async function setTelegramEventTypes(types: string[]): Promise<void> {
  await run(client.rpc("set_telegram_event_types", { p_event_types: types }));
}

export async function setTelegramExpiringDays(days: number[]): Promise<void> {
  await run(client.rpc("set_telegram_expiring_days", { p_days: days }));
}

export async function sendTelegramTest(): Promise<void> {
  await run(client.rpc("send_telegram_test"));
}

export async function webhooks(): Promise<Webhook[]> {
  return await run(
    client.from("webhook_endpoints").select(
      "id, description, enabled, event_types, kind, secret_configured, url_masked, created_at, expiring_days",
    ).is("organization_id", null).order("created_at"), // the account's own, not its organizations' team ones
  );
}

/** Creates a webhook; a generic one gets a secret made by the server, returned here once. */
export async function createWebhook(
  input: { url: string; description: string; kind: string; eventTypes: string[] },
): Promise<{ id: string; secret: string | null }> {
  const id = await run<string>(client.rpc("create_webhook_endpoint", {
    p_url: input.url,
    p_description: input.description || null,
    p_kind: input.kind,
    p_event_types: input.eventTypes,
  }));
  const secret = input.kind === "generic" ? await rotateWebhookSecret(id) : null;
  return { id, secret };
}

export async function updateWebhook(
  id: string,
  change: { enabled?: boolean; eventTypes?: string[] },
): Promise<void> {
  await run(client.rpc("update_webhook_endpoint", {
    p_id: id,
    p_enabled: change.enabled ?? null,
    p_event_types: change.eventTypes ?? null,
  }));
}

export async function setWebhookExpiringDays(id: string, days: number[]): Promise<void> {
  await run(client.rpc("set_webhook_expiring_days", { p_id: id, p_days: days }));
}

export async function deleteWebhook(id: string): Promise<void> {
  await run(client.rpc("delete_webhook_endpoint", { p_id: id }));
}

export function rotateWebhookSecret(id: string): Promise<string> {
  return run(client.rpc("rotate_webhook_secret", { p_id: id }));
}

export async function sendWebhookTest(id: string): Promise<void> {
  await run(client.rpc("send_webhook_test", { p_id: id }));
}

export function webhookDeliveries(id: string, cursor?: string): Promise<WebhookDeliveryPage> {
  return run(
    client.rpc("list_webhook_deliveries", { p_endpoint_id: id, p_limit: 20, p_cursor: cursor ?? null }),
  );
}

export async function redeliver(deliveryId: string): Promise<void> {
  await run(client.rpc("redeliver_webhook_delivery", { p_delivery_id: deliveryId }));
}

// ---------------------------------------------------------------- Email alerts

/** The account's email channels (its own address first; extra addresses masked) and the plan's allowance. */
export function emailChannels(): Promise<EmailChannels> {
  return run(client.rpc("list_email_channels"));
}

/** Adds an extra address (Pro and higher): pending until the link mailed to it is followed. */
export function addEmailAddress(address: string, eventTypes: string[]): Promise<EmailChannel> {
  return run(client.rpc("add_email_address", { p_address: address, p_event_types: eventTypes }));
}

export async function updateEmailAddress(
  id: string,
  change: { enabled?: boolean; eventTypes?: string[]; expiringDays?: number[] },
): Promise<void> {
  await run(client.rpc("update_email_address", {
    p_id: id,
    p_enabled: change.enabled ?? null,
    p_event_types: change.eventTypes ?? null,
    p_expiring_days: change.expiringDays ?? null,
  }));
}

export async function resendEmailConfirmation(id: string): Promise<void> {
  await run(client.rpc("resend_email_confirmation", { p_id: id }));
}

export async function deleteEmailAddress(id: string): Promise<void> {
  await run(client.rpc("delete_email_address", { p_id: id }));
}

export async function sendEmailTest(id: string): Promise<void> {
  await run(client.rpc("send_email_test", { p_id: id }));
}

export function emailDeliveries(id: string, cursor?: string): Promise<EmailDeliveryPage> {
  return run(
    client.rpc("list_email_deliveries", { p_address_id: id, p_limit: 20, p_cursor: cursor ?? null }),
  );
}

export async function redeliverEmail(deliveryId: string): Promise<void> {
  await run(client.rpc("redeliver_email_delivery", { p_delivery_id: deliveryId }));
}

/** A link of an alert mail (email-links), followed without a session: confirm an address or unsubscribe it. */
export async function followEmailLink(action: "confirm" | "unsubscribe", token: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${config.functionsUrl}/email-links/${action}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
  } catch (error) {
    fail(error);
  }
  if (!response.ok) await functionFailure(response);
  return ((await response.json()) as { status: string }).status;
}

// ---------------------------------------------------------------- Developer API

export async function apiKeys(): Promise<ApiKey[]> {
  return await run(
    client.from("api_keys").select("id, name, prefix, created_at, last_used_at, revoked_at")
      .is("revoked_at", null).is("organization_id", null) // the account's own, not its organizations'
      .order("created_at", { ascending: false }),
  );
}

export async function createApiKey(name: string): Promise<{ id: string; api_key: string; prefix: string }> {
  const rows = await run<{ id: string; api_key: string; prefix: string }[]>(
    client.rpc("create_api_key", { p_name: name }),
  );
  return rows[0];
}

export async function revokeApiKey(id: string): Promise<void> {
  await run(client.rpc("revoke_api_key", { p_key_id: id }));
}

// ---------------------------------------------------------------- Organizations

export async function organizations(userId: string): Promise<Organization[]> {
  // One request: the user's organizations with their own membership embedded (`!inner` keeps only those).
  const orgs = await run<
    { id: string; name: string; created_at: string; organization_members: { role: string }[] }[]
  >(
    client.from("organizations").select("id, name, created_at, organization_members!inner(role)")
      .eq("organization_members.user_id", userId).order("name"),
  );
  return orgs.map(({ organization_members, ...org }) => ({ ...org, role: organization_members[0].role }));
}

export async function createOrganization(name: string): Promise<string> {
  return await run<string>(client.rpc("create_organization", { p_name: name }));
}

export async function members(organizationId: string): Promise<Member[]> {
  // One request: each membership with the member's profile embedded (many-to-one through user_id).
  const rows = await run<
    {
      user_id: string;
      role: string;
      created_at: string;
      profiles: { email: string | null; display_name: string | null } | null;
    }[]
  >(
    client.from("organization_members").select("user_id, role, created_at, profiles(email, display_name)")
      .eq("organization_id", organizationId).order("created_at"),
  );
  return rows.map(({ profiles, ...row }) => ({
    ...row,
    email: profiles?.email ?? null,
    display_name: profiles?.display_name ?? null,
  }));
}

export async function setMemberRole(organizationId: string, userId: string, role: string): Promise<void> {
  await run(
    client.from("organization_members").update({ role }).eq("organization_id", organizationId).eq(
      "user_id",
      userId,
    ),
  );
}

export async function removeMember(organizationId: string, userId: string): Promise<void> {
  await run(
    client.from("organization_members").delete().eq("organization_id", organizationId).eq("user_id", userId),
  );
}

export async function invitations(organizationId: string): Promise<Invitation[]> {
  return await run(
    client.from("invitations").select("id, email, role, status, created_at, expires_at, emailed_at")
      .eq("organization_id", organizationId).eq("status", "pending").order("created_at", {
        ascending: false,
      }),
  );
}

export async function createInvitation(organizationId: string, email: string, role: string): Promise<string> {
  const row = await run<{ id: string }>(
    client.from("invitations").insert({ organization_id: organizationId, email, role }).select("id").single(),
  );
  return row.id;
}

export async function revokeInvitation(id: string): Promise<void> {
  await run(client.from("invitations").update({ status: "revoked" }).eq("id", id));
}

/** The copy-link fallback: the invitation's accept link, read through invitation_for_sending. */
export async function invitationLink(id: string): Promise<string> {
  const rows = await run<{ token: string }[]>(client.rpc("invitation_for_sending", { p_invitation_id: id }));
  if (!rows[0]) throw new RequestFailed({ message: "This invitation can no longer be sent." });
  return `${location.origin}/accept-invite?token=${encodeURIComponent(rows[0].token)}`;
}

/** send-org-invite: `{sent: true}` or `{sent: false, reason}` (then the link is the way). */
export async function sendInvitation(id: string): Promise<{ sent: boolean; reason?: string }> {
  const session = await currentSession();
  let response: Response;
  try {
    response = await fetch(`${config.functionsUrl}/send-org-invite`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${session?.access_token ?? ""}`,
        apikey: config.publishableKey,
        "content-type": "application/json",
      },
      body: JSON.stringify({ invitationId: id }),
    });
  } catch (error) {
    fail(error);
  }
  if (!response.ok) await functionFailure(response);
  return await response.json();
}

export async function acceptInvitation(token: string): Promise<string> {
  return await run<string>(client.rpc("accept_invitation", { p_token: token }));
}

// ---------------------------------------------------------------- OAuth consent

export interface AuthorizationDetails {
  authorization_id: string;
  redirect_uri: string;
  scope: string;
  client: { id: string; name?: string; uri?: string; logo_uri?: string };
}

/** The request's details, or `{redirect_url}` when the user consented to these scopes before. */
export async function authorizationDetails(
  id: string,
): Promise<AuthorizationDetails | { redirect_url: string }> {
  return await run(client.auth.oauth.getAuthorizationDetails(id));
}

export async function decideAuthorization(id: string, approve: boolean): Promise<string> {
  const options = { skipBrowserRedirect: true };
  const data = await run<{ redirect_url: string }>(
    approve
      ? client.auth.oauth.approveAuthorization(id, options)
      : client.auth.oauth.denyAuthorization(id, options),
  );
  return data.redirect_url;
}

/** An assistant (OAuth client) the user approved: GoTrue's `GET /user/oauth/grants` item. */
export interface AssistantGrant {
  client: { id: string; name?: string; uri?: string; logo_uri?: string };
  scopes: string[];
  granted_at: string;
}

/** The assistants the signed-in user approved, most recently approved first. */
export async function connectedAssistants(): Promise<AssistantGrant[]> {
  return (await run<AssistantGrant[] | null>(client.auth.oauth.listGrants())) ?? [];
}

/** Revokes the user's approval of an assistant: it must ask again, and its refresh tokens stop working. */
export async function disconnectAssistant(clientId: string): Promise<void> {
  await run(client.auth.oauth.revokeGrant({ clientId }));
}

// ---------------------------------------------------------------- Calendar feed

/** The account's calendar feed as the app may see it: never its token (shown once, when made). */
export interface CalendarFeedState {
  active: boolean;
  created_at: string | null;
  reminder_days: number[];
}

export async function calendarFeed(): Promise<CalendarFeedState> {
  const rows = await run<CalendarFeedState[]>(client.rpc("calendar_feed"));
  return rows[0] ?? { active: false, created_at: null, reminder_days: [30, 7, 1] };
}

/** The feed's URL for a token: `<project URL>/functions/v1/calendar/<token>.ics`. */
export function calendarFeedUrl(token: string): string {
  return `${config.supabaseUrl.replace(/\/+$/, "")}/functions/v1/calendar/${token}.ics`;
}

/** Makes or renews the feed (the previous URL stops working); its URL, shown this once. */
export async function createCalendarFeed(days?: number[]): Promise<string> {
  const token = await run<string>(client.rpc("create_calendar_feed", days ? { p_reminder_days: days } : {}));
  return calendarFeedUrl(token);
}

export async function setCalendarReminderDays(days: number[]): Promise<void> {
  await run(client.rpc("set_calendar_reminder_days", { p_reminder_days: days }));
}

export async function revokeCalendarFeed(): Promise<void> {
  await run(client.rpc("revoke_calendar_feed"));
}

// ---------------------------------------------------------------- Organizations' watchlists (issue 42)
// docs/organizations.md: every rule (roles, quota, one claim per name, the log) is the database's.

export async function teamWatchlistPage(
  organizationId: string,
  params: { status: string; search: string; limit: number; offset: number },
): Promise<TeamPage> {
  return await run(client.rpc("organization_watchlist_page", {
    p_organization_id: organizationId,
    p_status: params.status || null,
    p_search: params.search || null,
    p_limit: params.limit,
    p_offset: params.offset,
  }));
}

export async function addTeamDomains(organizationId: string, names: string[]): Promise<AddResult> {
  const input = names.map(domainInput);
  const rows = await run<AddResult[]>(
    client.rpc("add_organization_watchlist_domains", {
      p_organization_id: organizationId,
      p_domain_names: input,
    }),
  );
  const result = { ...rows[0], rejected_names: [] as string[] };
  if (result.rejected_over_limit > 0) {
    // What the quota turned away goes back as typed: the names not on the list now.
    const listed = new Set<string>();
    for (let i = 0; i < input.length; i += 100) {
      const found = await run<{ domain_name: string }[]>(
        client.from("organization_watchlist_entries").select("domain_name").eq(
          "organization_id",
          organizationId,
        )
          .in("domain_name", input.slice(i, i + 100)).is("deleted_at", null),
      );
      for (const row of found) listed.add(row.domain_name);
    }
    result.rejected_names = [...new Set(names.filter((_, i) => !listed.has(input[i])))];
  }
  return result;
}

export async function removeTeamDomain(organizationId: string, name: string): Promise<void> {
  await run(
    client.rpc("remove_organization_watchlist_domain", {
      p_organization_id: organizationId,
      p_domain_name: name,
    }),
  );
}

export async function claimTeamDomain(organizationId: string, name: string): Promise<void> {
  await run(
    client.rpc("claim_organization_domain", { p_organization_id: organizationId, p_domain_name: name }),
  );
}

export async function releaseTeamClaim(organizationId: string, name: string): Promise<void> {
  await run(
    client.rpc("release_organization_domain_claim", {
      p_organization_id: organizationId,
      p_domain_name: name,
    }),
  );
}

export async function teamActivity(organizationId: string, limit = 100): Promise<ActivityEntry[]> {
  return await run(
    client.from("organization_activity")
      .select("id, created_at, actor_name, action, domain_name, subject_name, detail")
      .eq("organization_id", organizationId)
      .order("created_at", { ascending: false }).order("id", { ascending: false })
      .limit(limit),
  );
}

export async function teamWebhooks(organizationId: string): Promise<TeamWebhook[]> {
  return await run(
    client.from("webhook_endpoints").select("id, kind, description, url_masked, enabled, event_types")
      .eq("organization_id", organizationId).order("created_at"),
  );
}

export async function createTeamWebhook(
  organizationId: string,
  url: string,
  kind: string,
  eventTypes: string[],
): Promise<string> {
  return await run(client.rpc("create_organization_webhook", {
    p_organization_id: organizationId,
    p_url: url,
    p_kind: kind,
    p_event_types: eventTypes,
  }));
}

export async function deleteTeamWebhook(organizationId: string, id: string): Promise<void> {
  await run(
    client.rpc("delete_organization_webhook", { p_organization_id: organizationId, p_webhook_id: id }),
  );
}

// The organization's email addresses and Telegram group (docs/organizations.md "Team channels"): members
// read them masked (no address, no chat ID); owners and admins change them.
export async function teamEmailAddresses(organizationId: string): Promise<TeamEmailChannels> {
  return await run(client.rpc("list_organization_email_addresses", { p_organization_id: organizationId }));
}

export async function addTeamEmailAddress(organizationId: string, address: string): Promise<EmailChannel> {
  return await run(client.rpc("add_organization_email_address", {
    p_organization_id: organizationId,
    p_address: address,
    p_event_types: ["domain.available", "domain.pending_delete"],
  }));
}

export async function resendTeamEmailConfirmation(organizationId: string, id: string): Promise<void> {
  await run(
    client.rpc("resend_organization_email_confirmation", { p_organization_id: organizationId, p_id: id }),
  );
}

export async function setTeamEmailEnabled(
  organizationId: string,
  id: string,
  enabled: boolean,
): Promise<void> {
  await run(client.rpc("update_organization_email_address", {
    p_organization_id: organizationId,
    p_id: id,
    p_enabled: enabled,
  }));
}

export async function deleteTeamEmailAddress(organizationId: string, id: string): Promise<void> {
  await run(client.rpc("delete_organization_email_address", { p_organization_id: organizationId, p_id: id }));
}

export async function teamTelegramGroup(organizationId: string): Promise<TeamTelegramGroup | null> {
  return await run(client.rpc("organization_telegram_group", { p_organization_id: organizationId }));
}

export async function createTeamTelegramLink(
  organizationId: string,
): Promise<{ url: string; expires_at: string }> {
  return await run(client.rpc("create_organization_telegram_link", { p_organization_id: organizationId }));
}

export async function setTeamTelegramEnabled(organizationId: string, enabled: boolean): Promise<void> {
  await run(client.rpc("update_organization_telegram_group", {
    p_organization_id: organizationId,
    p_enabled: enabled,
  }));
}

export async function unlinkTeamTelegramGroup(organizationId: string): Promise<void> {
  await run(client.rpc("unlink_organization_telegram_group", { p_organization_id: organizationId }));
}

export async function personalTeamAlerts(organizationId: string, userId: string): Promise<boolean> {
  const rows = await run<{ personal_alerts: boolean }[]>(
    client.from("organization_members").select("personal_alerts").eq("organization_id", organizationId)
      .eq("user_id", userId),
  );
  return rows[0]?.personal_alerts ?? false;
}

export async function setPersonalTeamAlerts(organizationId: string, enabled: boolean): Promise<void> {
  await run(
    client.rpc("set_organization_personal_alerts", { p_organization_id: organizationId, p_enabled: enabled }),
  );
}

/** The organizations whose lists hold a name (the caller's memberships, RLS) and each one's open claim. */
export async function teamClaimsOf(
  userId: string,
  name: string,
): Promise<{ organization: Organization; claim: { user_id: string; claimed_at: string } | null }[]> {
  const domain = domainInput(name);
  const entries = await run<{ organization_id: string }[]>(
    client.from("organization_watchlist_entries").select("organization_id").eq("domain_name", domain)
      .is("deleted_at", null),
  );
  if (entries.length === 0) return [];
  const claims = await run<{ organization_id: string; claimed_by: string; claimed_at: string }[]>(
    client.from("organization_claims").select("organization_id, claimed_by, claimed_at").eq(
      "domain_name",
      domain,
    ),
  );
  const orgs = await organizations(userId);
  return entries.flatMap((entry) => {
    const organization = orgs.find((o) => o.id === entry.organization_id);
    if (!organization) return [];
    const claim = claims.find((c) => c.organization_id === entry.organization_id);
    return [{
      organization,
      claim: claim ? { user_id: claim.claimed_by, claimed_at: claim.claimed_at } : null,
    }];
  });
}

/** A typed or linked name in the stored form (lower case, A-labels), as the database compares names. */
export function normalizedName(name: string): string {
  return domainInput(name);
}

export async function teamApiKeys(organizationId: string): Promise<ApiKey[]> {
  return await run(
    client.from("api_keys").select("id, name, prefix, created_at, last_used_at, revoked_at")
      .eq("organization_id", organizationId).is("revoked_at", null).order("created_at", { ascending: false }),
  );
}

export async function createTeamApiKey(
  organizationId: string,
  name: string,
): Promise<{ id: string; api_key: string }> {
  const rows = await run<{ id: string; api_key: string }[]>(
    client.rpc("create_organization_api_key", { p_organization_id: organizationId, p_name: name }),
  );
  return rows[0];
}

export async function revokeTeamApiKey(organizationId: string, id: string): Promise<void> {
  await run(client.rpc("revoke_organization_api_key", { p_organization_id: organizationId, p_key_id: id }));
}
