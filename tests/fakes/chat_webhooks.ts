/**
 * Local fakes of Slack's incoming webhooks and Discord's Execute Webhook, for tests (the real hosts are
 * unreachable here). The sender reaches them through `SLACK_WEBHOOK_BASE_URL` / `DISCORD_WEBHOOK_BASE_URL`,
 * which stand for `https://hooks.slack.com` and `https://discord.com`.
 *
 * They answer as the services document:
 * - Slack: `POST /services/<…>` of a known hook → 200 `ok` (text/html); a body that is not JSON with a
 *   `text` string or `blocks` array → 400 `invalid_payload`; an unknown hook → 404 `no_service`; a queued
 *   429 → `Retry-After: <seconds>` and `rate_limited`.
 * - Discord: `POST /api/webhooks/<id>/<token>` of a known hook → 204 No Content (200 with the message
 *   when `?wait=true`); neither `content` nor `embeds` → 400 `{"message": "Cannot send an empty message",
 *   "code": 50006}`; an unknown hook → 404 `{"message": "Unknown Webhook", "code": 10015}`; a queued 429 →
 *   `Retry-After` and `{"message": "You are being rate limited.", "retry_after": <seconds>, "global": false}`.
 */

export interface ChatHookRequest {
  /** The hook's path, e.g. `/services/T1/B2/x` or `/api/webhooks/1/tok`. */
  path: string;
  rawBody: string;
  /** The parsed JSON body, or null when it was not JSON. */
  body: Record<string, unknown> | null;
  headers: Record<string, string>;
  status: number;
  at: number;
}

export interface FakeChatService {
  /** The base URL (for SLACK_WEBHOOK_BASE_URL / DISCORD_WEBHOOK_BASE_URL). */
  url: string;
  /** Registers a hook path; returns the URL the user would paste (at the service's documented host). */
  hook(path: string): string;
  /** The next answers of a hook are 429s with this Retry-After (seconds), then normal answers. */
  rateLimit(path: string, retryAfterSeconds: number, times?: number): void;
  received: ChatHookRequest[];
  /** Requests to one hook that were answered 2xx. */
  accepted(path: string): ChatHookRequest[];
  close(): Promise<void>;
}

type Kind = "slack" | "discord";

const DOCUMENTED_ORIGIN: Record<Kind, string> = {
  slack: "https://hooks.slack.com",
  discord: "https://discord.com",
};

/** `port` 0 (the default) picks a free one; `deno task fakes` uses fixed ports. */
export function startFakeSlack(options: { port?: number } = {}): FakeChatService {
  return startFakeChatService("slack", options.port ?? 0);
}

export function startFakeDiscord(options: { port?: number } = {}): FakeChatService {
  return startFakeChatService("discord", options.port ?? 0);
}

function startFakeChatService(kind: Kind, port: number): FakeChatService {
  const hooks = new Set<string>();
  const limited = new Map<string, { seconds: number; times: number }>();
  const received: ChatHookRequest[] = [];

  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    async (request): Promise<Response> => {
      const url = new URL(request.url);
      const rawBody = await request.text();
      let body: Record<string, unknown> | null = null;
      try {
        const parsed = JSON.parse(rawBody);
        body = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : null;
      } catch {
        body = null;
      }
      const response = answer(kind, request.method, url, body, hooks, limited);
      received.push({
        path: url.pathname,
        rawBody,
        body,
        headers: Object.fromEntries(request.headers.entries()),
        status: response.status,
        at: Date.now(),
      });
      return response;
    },
  );
  const address = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${address.port}`,
    hook(path) {
      hooks.add(path);
      return `${DOCUMENTED_ORIGIN[kind]}${path}`;
    },
    rateLimit(path, seconds, times = 1) {
      limited.set(path, { seconds, times });
    },
    received,
    accepted: (path) => received.filter((r) => r.path === path && r.status >= 200 && r.status < 300),
    close: () => server.shutdown(),
  };
}

function answer(
  kind: Kind,
  method: string,
  url: URL,
  body: Record<string, unknown> | null,
  hooks: Set<string>,
  limited: Map<string, { seconds: number; times: number }>,
): Response {
  const path = url.pathname;
  const known = method === "POST" && hooks.has(path);
  if (kind === "slack") {
    if (!known) return text(404, "no_service");
    const limit = takeLimit(limited, path);
    if (limit !== null) return text(429, "rate_limited", { "Retry-After": String(limit) });
    const valid = body !== null && (typeof body.text === "string" || Array.isArray(body.blocks));
    return valid ? text(200, "ok") : text(400, "invalid_payload");
  }
  if (!known) return json(404, { message: "Unknown Webhook", code: 10015 });
  const limit = takeLimit(limited, path);
  if (limit !== null) {
    return json(429, { message: "You are being rate limited.", retry_after: limit, global: false }, {
      "Retry-After": String(Math.ceil(limit)),
    });
  }
  const content = body?.content;
  const embeds = body?.embeds;
  const hasContent = typeof content === "string" && content.length > 0 && content.length <= 2000;
  const hasEmbeds = Array.isArray(embeds) && embeds.length > 0 && embeds.length <= 10;
  if (!hasContent && !hasEmbeds) return json(400, { message: "Cannot send an empty message", code: 50006 });
  if (url.searchParams.get("wait") === "true") return json(200, { id: "1", content: content ?? "" });
  return new Response(null, { status: 204 });
}

function takeLimit(limited: Map<string, { seconds: number; times: number }>, path: string): number | null {
  const limit = limited.get(path);
  if (!limit || limit.times <= 0) return null;
  limit.times--;
  return limit.seconds;
}

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/html", ...headers } });
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
