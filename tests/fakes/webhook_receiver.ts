/**
 * A local webhook receiver for tests: each endpoint is a path (`/hooks/<name>`) with its own signing
 * secret and optional failing answers. Every request is recorded with its raw body and headers, and its
 * `X-Service-Signature` is verified with an independent implementation, `@octokit/webhooks-methods`.
 */
import { verify } from "@octokit/webhooks-methods";

export interface ReceivedWebhook {
  endpoint: string;
  rawBody: string;
  headers: Record<string, string>;
  /** Null when the endpoint has no secret (nothing to verify). */
  signatureValid: boolean | null;
  /** The status this receiver answered. */
  status: number;
  at: number;
}

export interface EndpointOptions {
  secret?: string;
  /** Statuses to answer first, in order (e.g. [500, 302, 503]); after them 200. */
  failWith?: number[];
}

export interface WebhookReceiver {
  url: string;
  /** Adds an endpoint; returns its URL. */
  endpoint(name: string, options?: EndpointOptions): string;
  received: ReceivedWebhook[];
  /** Requests to one endpoint that were answered 2xx. */
  accepted(name: string): ReceivedWebhook[];
  close(): Promise<void>;
}

export function startWebhookReceiver(options: { port?: number } = {}): WebhookReceiver {
  const endpoints = new Map<string, { secret?: string; failWith: number[] }>();
  const received: ReceivedWebhook[] = [];
  let baseUrl = "";

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request): Promise<Response> => {
      const match = new URL(request.url).pathname.match(/^\/hooks\/([^/]+)$/);
      const endpoint = match ? endpoints.get(match[1]) : undefined;
      const rawBody = await request.text();
      if (!match || !endpoint) return new Response("no such hook", { status: 404 });
      const headers = Object.fromEntries(request.headers.entries());
      const signature = request.headers.get("x-service-signature");
      const signatureValid = endpoint.secret === undefined
        ? null
        : signature !== null && await verify(endpoint.secret, rawBody, signature);
      const status = endpoint.failWith.shift() ?? 200;
      received.push({ endpoint: match[1], rawBody, headers, signatureValid, status, at: Date.now() });
      if (status >= 300 && status < 400) {
        return new Response(null, { status, headers: { location: `${baseUrl}/hooks/${match[1]}-moved` } });
      }
      return new Response(status < 300 ? "ok" : "failing on purpose", { status });
    },
  );
  baseUrl = `http://127.0.0.1:${server.addr.port}`;

  return {
    url: baseUrl,
    endpoint(name, options = {}) {
      endpoints.set(name, { secret: options.secret, failWith: [...(options.failWith ?? [])] });
      return `${baseUrl}/hooks/${name}`;
    },
    received,
    accepted: (name) => received.filter((hook) => hook.endpoint === name && hook.status < 300),
    close: () => server.shutdown(),
  };
}
