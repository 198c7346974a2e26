/**
 * The local stand-in for Supabase's functions gateway. Each edge function's `index.ts` calls
 * `Deno.serve(handler)` as it does on Supabase; we capture that handler instead of opening a port, then
 * serve every function under `/functions/v1/<name>/...`, passing the function the path the way Supabase's
 * gateway does (`/<name>/...`, query kept). `/rest/v1/...` goes to the local stand-in for the Data API
 * (PostgREST, ./rest/handler.ts). `/auth/v1/...` goes to the local stand-in for Supabase Auth,
 * and so do the host-root discovery URLs Supabase's gateway answers for Auth's OAuth server (RFC 8414 path
 * insertion: `/.well-known/oauth-authorization-server/auth/v1`, and the OpenID form).
 */
import { join } from "node:path";
import { handleAuthRequest } from "./auth/server.ts";
import { handleRestRequest } from "./rest/handler.ts";
import { functionsDir } from "./paths.ts";

type Handler = (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response>;

export const functionNames = [
  "api-v1",
  "export-account",
  "send-org-invite",
  "check-now",
  "rdap-poller",
  "telegram-bot",
  "calendar",
  "email-links",
] as const;

const handlers = new Map<string, Handler>();

function handlerFrom(args: unknown[]): Handler {
  for (const arg of args) {
    if (typeof arg === "function") return arg as Handler;
    if (arg && typeof arg === "object" && "handler" in arg) return (arg as { handler: Handler }).handler;
  }
  throw new Error("Deno.serve was called without a handler");
}

/** Imports every function once, capturing the handler each one gives `Deno.serve`. */
export async function loadFunctions(): Promise<Map<string, Handler>> {
  if (handlers.size > 0) return handlers;
  const realServe = Deno.serve;
  try {
    for (const name of functionNames) {
      let captured: Handler | undefined;
      (Deno as { serve: unknown }).serve = (...args: unknown[]) => {
        captured = handlerFrom(args);
        return { finished: Promise.resolve(), shutdown: () => Promise.resolve(), ref() {}, unref() {} };
      };
      await import(`file://${join(functionsDir, name, "index.ts")}`);
      if (!captured) throw new Error(`functions/${name}/index.ts did not call Deno.serve`);
      handlers.set(name, captured);
    }
  } finally {
    (Deno as { serve: unknown }).serve = realServe;
  }
  return handlers;
}

function notFound(message: string): Response {
  return Response.json({ error: "not_found", message }, { status: 404 });
}

/** Routes one gateway request to its function. */
export function route(
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
): Response | Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname.startsWith("/auth/v1/")) return handleAuthRequest(request);
  if (url.pathname === "/rest/v1" || url.pathname.startsWith("/rest/v1/")) return handleRestRequest(request);
  const discovery = url.pathname.match(
    /^\/\.well-known\/(oauth-authorization-server|openid-configuration)\/auth\/v1$/,
  );
  if (discovery) {
    return handleAuthRequest(new Request(new URL(`/auth/v1/.well-known/${discovery[1]}`, url), request));
  }
  const match = url.pathname.match(/^\/functions\/v1\/([^/]+)(\/.*)?$/);
  if (!match) return notFound("Edge functions are served under /functions/v1/<name>.");
  const handler = handlers.get(match[1]);
  if (!handler) return notFound(`There is no function named ${match[1]}.`);
  const forwarded = new URL(`/${match[1]}${match[2] ?? ""}${url.search}`, url.origin);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = {
    method: request.method,
    headers: request.headers,
    body: hasBody ? request.body : undefined,
    duplex: hasBody ? "half" : undefined,
    redirect: "manual",
  };
  return handler(new Request(forwarded, init), info);
}

export interface RunningGateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startGateway(options: { port: number; hostname?: string }): Promise<RunningGateway> {
  await loadFunctions();
  const hostname = options.hostname ?? "127.0.0.1";
  const server = Deno.serve({ port: options.port, hostname, onListen: () => {} }, route);
  const port = (server.addr as Deno.NetAddr).port;
  return {
    url: `http://${hostname}:${port}`,
    port,
    close: () => server.shutdown(),
  };
}
