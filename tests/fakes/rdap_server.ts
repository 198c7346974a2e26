/**
 * A local fake RDAP registry for tests. It serves:
 * - `/dns.json`: an RFC 9224 bootstrap whose services point at this server;
 * - `/domain/<name>`: whatever `setDomain` configured (unknown names: 404 with an empty body, as Verisign does);
 * - `/moved/domain/<name>`: a 301 redirect to `/domain/<name>`, to test that redirects are followed
 *   (`setDomain` with status 302 redirects anywhere).
 */

export type FakeStatus = 200 | 302 | 404 | 429 | 500 | "timeout" | "html";

export interface FakeResponse {
  status: FakeStatus;
  /** JSON body (objects are serialised) or raw text. Defaults: a minimal domain object for 200, empty for 404. */
  body?: unknown;
  /** Value of the `Retry-After` header on a 429 (seconds as a number, or an HTTP date string). */
  retryAfter?: number | string;
  /** The `Location` of a 302. */
  location?: string;
  /** Answer this many ms after the request arrived (a slow registry). */
  delayMs?: number;
}

export interface FakeRequest {
  path: string;
  at: number;
  accept: string | null;
}

export interface FakeRdap {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:41234/`. */
  url: string;
  /**
   * Sets how `/domain/<name>` answers. An array is a sequence: each request takes the next answer and the
   * last one repeats.
   */
  setDomain(name: string, response: FakeResponse | FakeResponse[]): void;
  /** TLDs listed in the served `/dns.json`. */
  setBootstrapTlds(tlds: string[]): void;
  requests: FakeRequest[];
  bootstrapJson(tlds: string[], baseUrl?: string): BootstrapDocument;
  close(): Promise<void>;
}

export interface BootstrapDocument {
  description: string;
  publication: string;
  services: [string[], string[]][];
  version: string;
}

export interface FakeRdapOptions {
  port?: number;
  /** Serve HTTPS with this certificate and key (PEM); the client must trust its authority. */
  tls?: { cert: string; key: string };
  tlds?: string[];
  publication?: string;
}

export function startFakeRdap(options: FakeRdapOptions = {}): Promise<FakeRdap> {
  const answers = new Map<string, FakeResponse[]>();
  const requests: FakeRequest[] = [];
  const hanging = new Set<() => void>();
  let bootstrapTlds = options.tlds ?? [];
  let baseUrl = "";

  const bootstrapJson = (tlds: string[], base = baseUrl): BootstrapDocument => ({
    description: "RDAP bootstrap file for Domain Name System registrations",
    publication: options.publication ?? "2026-01-30T00:00:01Z",
    services: tlds.length === 0 ? [] : [[tlds, [base]]],
    version: "1.0",
  });

  const nextAnswer = (name: string): FakeResponse => {
    const queue = answers.get(name);
    if (!queue || queue.length === 0) return { status: 404 };
    return queue.length > 1 ? queue.shift()! : queue[0];
  };

  const respond = (name: string, answer: FakeResponse): Response | Promise<Response> => {
    const rdapHeaders = { "content-type": "application/rdap+json" };
    switch (answer.status) {
      case 200:
        return new Response(serialise(answer.body ?? minimalDomain(name)), {
          status: 200,
          headers: rdapHeaders,
        });
      case 404:
        return new Response(answer.body === undefined ? "" : serialise(answer.body), {
          status: 404,
          headers: rdapHeaders,
        });
      case 429: {
        const headers: Record<string, string> = { ...rdapHeaders };
        if (answer.retryAfter !== undefined) headers["retry-after"] = String(answer.retryAfter);
        return new Response(serialise(answer.body ?? { errorCode: 429, title: "Too Many Requests" }), {
          status: 429,
          headers,
        });
      }
      case 302:
        return new Response(null, { status: 302, headers: { location: answer.location ?? "/" } });
      case 500:
        return new Response(serialise(answer.body ?? "Internal Server Error"), { status: 500 });
      case "html":
        return new Response(
          typeof answer.body === "string"
            ? answer.body
            : "<html><body>Service temporarily moved</body></html>",
          { status: 200, headers: { "content-type": "text/html" } },
        );
      case "timeout":
        // Never answers; `close()` releases the request so the server can shut down.
        return new Promise<Response>((resolve) => {
          const release = () => {
            hanging.delete(release);
            resolve(new Response("", { status: 504 }));
          };
          hanging.add(release);
        });
    }
  };

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {}, ...options.tls },
    (request) => {
      const path = new URL(request.url).pathname;
      requests.push({ path, at: Date.now(), accept: request.headers.get("accept") });
      if (path === "/dns.json") return Response.json(bootstrapJson(bootstrapTlds));
      const moved = path.match(/^\/moved\/domain\/([^/]+)$/);
      if (moved) return new Response(null, { status: 301, headers: { location: `/domain/${moved[1]}` } });
      const domain = path.match(/^\/domain\/([^/]+)$/);
      if (!domain) return new Response("not here", { status: 400 });
      const name = decodeURIComponent(domain[1]).toLowerCase();
      const answer = nextAnswer(name);
      if (!answer.delayMs) return respond(name, answer);
      return new Promise<void>((resolve) => setTimeout(resolve, answer.delayMs)).then(() =>
        respond(name, answer)
      );
    },
  );
  baseUrl = `${options.tls ? "https" : "http"}://127.0.0.1:${server.addr.port}/`;

  return Promise.resolve({
    url: baseUrl,
    setDomain: (name, response) => {
      answers.set(name.toLowerCase(), Array.isArray(response) ? [...response] : [response]);
    },
    setBootstrapTlds: (tlds) => {
      bootstrapTlds = tlds;
    },
    requests,
    bootstrapJson,
    close: async () => {
      for (const release of [...hanging]) release();
      await server.shutdown();
    },
  });
}

function serialise(body: unknown): string {
  return typeof body === "string" ? body : JSON.stringify(body);
}

/** The smallest domain object a registry could plausibly send. */
export function minimalDomain(name: string): Record<string, unknown> {
  return {
    objectClassName: "domain",
    ldhName: name.toUpperCase(),
    status: ["active"],
    events: [
      { eventAction: "registration", eventDate: "2001-02-03T04:05:06Z" },
      { eventAction: "expiration", eventDate: "2031-02-03T04:05:06Z" },
    ],
    rdapConformance: ["rdap_level_0"],
  };
}
