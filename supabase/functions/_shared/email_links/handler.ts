/**
 * email-links: the two links in the mails, without a session (docs/alerts.md, "Email").
 * - `GET /email-links/confirm?token=…` and `GET /email-links/unsubscribe?token=…` change nothing (mail
 *   scanners open links): they redirect (303) to the app's page `<APP_URL>/email-link?action=…&token=…`,
 *   which asks the person and POSTs; without APP_URL they answer JSON saying to POST.
 * - `POST /email-links/confirm` confirms an extra address; `POST /email-links/unsubscribe` stops the
 *   address the mail went to. The token comes in the query (RFC 8058: the mail client POSTs
 *   `List-Unsubscribe=One-Click` to the header's URL as is) or as `{"token"}` in a JSON body (the app).
 *   200 `{"status": "confirmed" | "unsubscribed"}`; 404 `invalid_link` for an unknown, used or expired
 *   token; 400 for a malformed one.
 * CORS for the app's origins (APP_ORIGINS). The token never reaches a log line.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { errorHandler, methodNotAllowed, notFound, requestId, type RequestIdEnv } from "../http/pipeline.ts";
import { ApiError } from "../http/errors.ts";
import { allowedOrigin, preflightHeaders, responseHeaders } from "../session/cors.ts";
import { config } from "../config.ts";

export type LinkAction = "confirm" | "unsubscribe";

export interface EmailLinkStore {
  confirm(token: string): Promise<"confirmed" | "invalid">;
  unsubscribe(token: string): Promise<"unsubscribed" | "invalid">;
}

const TOKEN = /^[0-9a-f]{48}$/;

/** The token of a link request: the query's, else a JSON body's `token`; null when there is none. */
export function linkToken(query: string | undefined | null, body: unknown): string | null {
  if (query) return query;
  if (body && typeof body === "object" && typeof (body as { token?: unknown }).token === "string") {
    return (body as { token: string }).token;
  }
  return null;
}

/** Where a GET of a link goes: the app's page for it, or null without APP_URL. */
export function appLinkPage(appUrl: string | undefined, action: LinkAction, token: string): string | null {
  if (!appUrl) return null;
  return `${appUrl.replace(/\/+$/, "")}/email-link?action=${action}&token=${encodeURIComponent(token)}`;
}

async function readBody(c: Context): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!type.includes("application/json")) return null;
  try {
    return await c.req.json();
  } catch {
    throw new ApiError("invalid_request", "The body is not JSON.");
  }
}

export function emailLinksApp(store: EmailLinkStore): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>().basePath("/email-links");
  app.use("*", requestId());
  app.use("*", async (c, next) => {
    const origin = allowedOrigin(c.req.header("origin"));
    if (c.req.method === "OPTIONS") {
      return origin ? c.body(null, 204, preflightHeaders(origin)) : c.body(null, 204);
    }
    await next();
    if (origin) {
      for (const [name, value] of Object.entries(responseHeaders(origin))) c.header(name, value);
    }
  });
  app.onError(errorHandler("email-links"));
  app.notFound(notFound());

  // The bare path (what `deno task admin preflight` probes) says where the links are.
  app.all("/", () => {
    throw new ApiError(
      "invalid_request",
      "Use the link from the mail: /email-links/confirm or /email-links/unsubscribe.",
    );
  });

  for (const action of ["confirm", "unsubscribe"] as const) {
    app.get(`/${action}`, (c) => {
      const token = c.req.query("token") ?? "";
      if (!TOKEN.test(token)) {
        throw new ApiError("invalid_request", "This link is incomplete: copy all of it.");
      }
      const page = appLinkPage(config.appUrl(), action, token);
      if (page) return c.redirect(page, 303);
      return c.json({
        action,
        message: action === "confirm"
          ? "POST to this URL to confirm the address."
          : "POST to this URL to unsubscribe the address (RFC 8058 one-click).",
      });
    });
    app.post(`/${action}`, async (c) => {
      const token = linkToken(c.req.query("token"), await readBody(c));
      if (token === null || !TOKEN.test(token)) {
        throw new ApiError("invalid_request", "The link's token is missing or malformed.");
      }
      const status = action === "confirm" ? await store.confirm(token) : await store.unsubscribe(token);
      if (status === "invalid") {
        throw new ApiError(
          "not_found",
          action === "confirm"
            ? "This confirmation link does not work any more (used, replaced or older than 24 hours). Ask for a new one in the app."
            : "This unsubscribe link is not known.",
          { reason: "invalid_link" },
        );
      }
      c.header("Cache-Control", "no-store");
      return c.json({ status });
    });
    app.all(`/${action}`, methodNotAllowed(["GET", "POST"]));
  }
  return app;
}
