/**
 * Serves the built app (app/dist) on APP_URL's port, as a static host would: files as they are, every
 * other path index.html (the History API routes: /domains/…, /oauth/consent, /accept-invite, …), and
 * /config.json from the running stack (Supabase URL, publishable key, functions base, and the operator's
 * APP_UPGRADE_URL when set).
 */
import { extname, join, normalize } from "node:path";
import { appDistDir } from "./build.ts";
import { securityHeaders } from "./headers.ts";

export interface AppServerOptions {
  /** 0 for a free port (tests); default APP_URL's port. */
  port: number;
  hostname?: string;
  /** `upgradeUrl`: the operator's APP_UPGRADE_URL (the app's "Upgrade" button), when set. */
  config: { supabaseUrl: string; publishableKey: string; functionsUrl?: string; upgradeUrl?: string };
  dir?: string;
}

export interface RunningAppServer {
  url: string;
  close(): Promise<void>;
}

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
};

async function file(path: string, headers: Record<string, string>): Promise<Response | undefined> {
  try {
    const body = await Deno.readFile(path);
    return new Response(body, {
      headers: {
        "content-type": types[extname(path)] ?? "application/octet-stream",
        "cache-control": "no-cache",
        ...headers,
      },
    });
  } catch {
    return undefined;
  }
}

export function appHandler(options: AppServerOptions): (request: Request) => Promise<Response> {
  const dir = options.dir ?? appDistDir;
  // Read on each request, so a test may start the app before the stack it points at.
  const config = () =>
    JSON.stringify({
      supabaseUrl: options.config.supabaseUrl,
      publishableKey: options.config.publishableKey,
      functionsUrl: options.config.functionsUrl ?? `${options.config.supabaseUrl}/functions/v1`,
      ...(options.config.upgradeUrl ? { upgradeUrl: options.config.upgradeUrl } : {}),
    });
  return async (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed", { status: 405, headers: { allow: "GET, HEAD" } });
    }
    const path = decodeURIComponent(new URL(request.url).pathname);
    // The same headers as the build's host files (./headers.ts), for the stack's URL as it is now.
    const headers = securityHeaders({
      supabaseUrl: options.config.supabaseUrl || undefined,
      functionsUrl: options.config.functionsUrl,
    });
    if (path === "/config.json") {
      return new Response(config(), {
        headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
      });
    }
    const safe = normalize(path);
    if (!safe.includes("..") && safe !== "/") {
      const found = await file(join(dir, safe), headers);
      if (found) return found;
      // A missing asset is a 404; any other path is a route (`/domains/example.dev` too): index.html.
      if (types[extname(safe)]) return new Response("Not found", { status: 404 });
    }
    return (await file(join(dir, "index.html"), headers)) ??
      new Response("The app is not built: run deno task app:build", { status: 503 });
  };
}

export function startAppServer(options: AppServerOptions): RunningAppServer {
  const hostname = options.hostname ?? "127.0.0.1";
  const server = Deno.serve({ port: options.port, hostname, onListen: () => {} }, appHandler(options));
  const address = server.addr as Deno.NetAddr;
  return {
    url: `http://${hostname === "127.0.0.1" ? "localhost" : hostname}:${address.port}`,
    close: () => server.shutdown(),
  };
}
