/**
 * A local webhook receiver for tests: each endpoint is a path (`/hooks/<name>`) with its own signing
 * secret and optional failing answers. Every request is recorded with its raw body and headers, and its
 * `X-Service-Signature` is verified with an independent implementation, `@octokit/webhooks-methods`, and
 * the Standard Webhooks headers with the standard's own library, `standardwebhooks`.
 * An endpoint can also never answer (`hang`) or answer late (`delayMs`), and counts its open requests.
 */
import { verify } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";

export interface ReceivedWebhook {
  endpoint: string;
  rawBody: string;
  headers: Record<string, string>;
  /** Null when the endpoint has no secret (nothing to verify). */
  signatureValid: boolean | null;
  /** `webhook-signature` verified by `standardwebhooks` with the endpoint's secret; null without one. */
  standardValid: boolean | null;
  /** The status this receiver answered (0: it never answered, see `hang`). */
  status: number;
  at: number;
}

export interface EndpointOptions {
  secret?: string;
  /** Statuses to answer first, in order (e.g. [500, 302, 503]); after them 200. */
  failWith?: number[];
  /** Accept each request and never answer (until the receiver closes). */
  hang?: boolean;
  /** Answer only after this long. */
  delayMs?: number;
}

export interface WebhookReceiver {
  url: string;
  /** Adds an endpoint; returns its URL. */
  endpoint(name: string, options?: EndpointOptions): string;
  received: ReceivedWebhook[];
  /** Requests to one endpoint that were answered 2xx. */
  accepted(name: string): ReceivedWebhook[];
  /** The most requests one endpoint had open at the same time. */
  mostInFlight(name: string): number;
  close(): Promise<void>;
}

export function startWebhookReceiver(options: { port?: number } = {}): WebhookReceiver {
  const endpoints = new Map<
    string,
    { secret?: string; failWith: number[]; hang: boolean; delayMs: number }
  >();
  const received: ReceivedWebhook[] = [];
  const inFlight = new Map<string, number>();
  const most = new Map<string, number>();
  const closing = new AbortController();
  let baseUrl = "";

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: options.port ?? 0, onListen: () => {} },
    async (request): Promise<Response> => {
      const match = new URL(request.url).pathname.match(/^\/hooks\/([^/]+)$/);
      const endpoint = match ? endpoints.get(match[1]) : undefined;
      const rawBody = await request.text();
      if (!match || !endpoint) return new Response("no such hook", { status: 404 });
      const name = match[1];
      inFlight.set(name, (inFlight.get(name) ?? 0) + 1);
      most.set(name, Math.max(most.get(name) ?? 0, inFlight.get(name)!));
      try {
        if (endpoint.hang) {
          received.push({
            endpoint: name,
            rawBody,
            headers: Object.fromEntries(request.headers.entries()),
            signatureValid: null,
            standardValid: null,
            status: 0,
            at: Date.now(),
          });
          await new Promise<void>((resolve) => {
            request.signal.addEventListener("abort", () => resolve());
            closing.signal.addEventListener("abort", () => resolve());
          });
          return new Response("too late", { status: 504 });
        }
        if (endpoint.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, endpoint.delayMs));
        return await answer(request, name, endpoint, rawBody);
      } finally {
        inFlight.set(name, inFlight.get(name)! - 1);
      }
    },
  );

  async function answer(
    request: Request,
    name: string,
    endpoint: { secret?: string; failWith: number[] },
    rawBody: string,
  ): Promise<Response> {
    const headers = Object.fromEntries(request.headers.entries());
    const signature = request.headers.get("x-service-signature");
    const signatureValid = endpoint.secret === undefined
      ? null
      : signature !== null && await verify(endpoint.secret, rawBody, signature);
    const standardValid = endpoint.secret === undefined
      ? null
      : verifyStandard(endpoint.secret, rawBody, headers);
    const status = endpoint.failWith.shift() ?? 200;
    received.push({
      endpoint: name,
      rawBody,
      headers,
      signatureValid,
      standardValid,
      status,
      at: Date.now(),
    });
    if (status >= 300 && status < 400) {
      return new Response(null, { status, headers: { location: `${baseUrl}/hooks/${name}-moved` } });
    }
    return new Response(status < 300 ? "ok" : "failing on purpose", { status });
  }
  baseUrl = `http://127.0.0.1:${server.addr.port}`;

  return {
    url: baseUrl,
    endpoint(name, options = {}) {
      endpoints.set(name, {
        secret: options.secret,
        failWith: [...(options.failWith ?? [])],
        hang: options.hang ?? false,
        delayMs: options.delayMs ?? 0,
      });
      return `${baseUrl}/hooks/${name}`;
    },
    received,
    accepted: (name) =>
      received.filter((hook) => hook.endpoint === name && hook.status >= 200 && hook.status < 300),
    mostInFlight: (name) => most.get(name) ?? 0,
    close: () => {
      closing.abort();
      return server.shutdown();
    },
  };
}

/**
 * A receiver's Standard Webhooks check with the `standardwebhooks` library: a `whsec_<base64>` secret as
 * the library takes it, any other secret as its UTF-8 bytes (`format: "raw"`). False when the library
 * refuses the delivery (bad signature, missing header, timestamp more than 5 minutes away).
 */
export function verifyStandard(secret: string, rawBody: string, headers: Record<string, string>): boolean {
  try {
    const standardForm =
      /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(secret) &&
      secret.length > "whsec_".length;
    const webhook = standardForm
      ? new Webhook(secret)
      : new Webhook(new TextEncoder().encode(secret), { format: "raw" });
    webhook.verify(rawBody, headers);
    return true;
  } catch {
    return false;
  }
}
