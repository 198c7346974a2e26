/**
 * The app's response headers, one list for the local static host (./server.ts) and for the host files the
 * build writes (./build.ts: Netlify's and Cloudflare Pages' `_headers` and `_redirects`, Vercel's
 * `vercel.json`): a content security policy the app passes (its own files, and requests only to the
 * project's Supabase URL and functions), no framing anywhere (`frame-ancestors 'none'`, `X-Frame-Options:
 * DENY`: the consent page's Approve must not be clickjacked), and the SPA fallback (every route answers
 * index.html). Pure; tests/unit/app_host_files.test.ts.
 */

export interface HostConfig {
  supabaseUrl?: string;
  functionsUrl?: string;
}

/** Where the app may send requests: its own origin and the Supabase project's (and the functions'). */
function connectSources(config: HostConfig): string[] {
  const origins = [config.supabaseUrl, config.functionsUrl].filter((url): url is string => !!url)
    .map((url) => new URL(url).origin);
  // Built without the project's URL: any hosted project (config.json names the real one at run time).
  if (origins.length === 0) origins.push("https://*.supabase.co");
  return ["'self'", ...new Set(origins)];
}

export function contentSecurityPolicy(config: HostConfig): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connectSources(config).join(" ")}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The headers every answer of the app's host carries. */
export function securityHeaders(config: HostConfig): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(config),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
  };
}

const titleCase = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash, c) => dash + c.toUpperCase());

/** The files a static host reads beside the app's, by name. */
export function hostFiles(config: HostConfig): Record<string, string> {
  const headers = Object.entries(securityHeaders(config)).map(([name, value]) => [titleCase(name), value]);
  return {
    // Netlify and Cloudflare Pages: headers by path pattern; config.json is never cached.
    "_headers": [
      "/*",
      ...headers.map(([name, value]) => `  ${name}: ${value}`),
      "/config.json",
      "  Cache-Control: no-store",
      "",
    ].join("\n"),
    // Netlify (Cloudflare Pages falls back to index.html on its own when there is no 404.html): a rewrite
    // (200), applied only where no file exists.
    "_redirects": "/*  /index.html  200\n",
    // Vercel: files first, then the rewrite; the same headers.
    "vercel.json": JSON.stringify(
      {
        rewrites: [{ source: "/(.*)", destination: "/index.html" }],
        headers: [
          { source: "/(.*)", headers: headers.map(([key, value]) => ({ key, value })) },
          { source: "/config.json", headers: [{ key: "Cache-Control", value: "no-store" }] },
        ],
      },
      null,
      2,
    ) + "\n",
  };
}
