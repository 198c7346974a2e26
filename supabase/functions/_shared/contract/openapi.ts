/** The OpenAPI 3.1 document of api-v1, generated from the zod schemas that validate requests. */
import { z } from "zod";
import { errorBody } from "./errors.ts";
import { maxBatchSize } from "./limits.ts";
import {
  addDomainsBody,
  addDomainsResponse,
  checkResult,
  listQuery,
  listResponse,
  removeDomainResponse,
} from "./schemas.ts";
import { type AlertEventName, alertEventSchemas, webhookRequestHeaders } from "./webhook_event.ts";

type JsonSchema = Record<string, unknown>;

const requestSchema = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
const responseSchema = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: "output" }) as JsonSchema;

const rateLimitHeaderSpecs = {
  "RateLimit-Limit": { description: "Requests allowed per UTC day.", schema: { type: "integer" } },
  "RateLimit-Remaining": { description: "Requests left today.", schema: { type: "integer" } },
  "RateLimit-Reset": { description: "Seconds until the limit resets.", schema: { type: "integer" } },
};

/** Every response carries it (the same id is in the server's log lines and in a 500's body). */
const requestIdHeaderSpec = {
  "X-Request-Id": { description: "This request's id.", required: true, schema: { type: "string" } },
};

const retryAfterHeaderSpec = {
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    required: true,
    schema: { type: "integer" },
  },
};

function jsonResponse(description: string, schema: JsonSchema) {
  return {
    description,
    headers: { ...requestIdHeaderSpec, ...rateLimitHeaderSpecs },
    content: { "application/json": { schema } },
  };
}

const error = (description: string) => ({ $ref: `#/components/responses/${description}` });

const commonErrors = {
  "400": error("InvalidRequest"),
  "401": error("Unauthorized"),
  "403": error("UpgradeRequired"),
  "429": error("RateLimited"),
  "500": error("Internal"),
  "503": error("ServiceUnavailable"),
};

function queryParameters(schema: z.ZodObject): JsonSchema[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const fieldSchema = responseSchema(field as z.ZodType);
    const { description, ...rest } = fieldSchema;
    return { name, in: "query", required: false, description, schema: rest };
  });
}

function pathParameter(name: string, description: string): JsonSchema {
  return { name, in: "path", required: true, description, schema: { type: "string" } };
}

export function openApiDocument(serverUrl: string): JsonSchema {
  return {
    openapi: "3.1.0",
    info: {
      title: "Domain Watchlist API",
      version: "1.0.0",
      description: "Watch domain names through RDAP and DNS and be alerted when one becomes available. " +
        "Requires a Pro plan or higher.",
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    paths: {
      "/domains": {
        get: {
          operationId: "listWatchlist",
          summary: "List watchlist domains, ordered by name (offset or cursor paging).",
          parameters: queryParameters(listQuery),
          responses: {
            "200": jsonResponse("A page of the watchlist.", responseSchema(listResponse)),
            ...commonErrors,
          },
        },
        post: {
          operationId: "addDomains",
          summary: `Add up to ${maxBatchSize} domains; the plan's watchlist quota applies in request order.`,
          requestBody: {
            required: true,
            content: { "application/json": { schema: requestSchema(addDomainsBody) } },
          },
          responses: {
            "200": jsonResponse("What happened to the names.", responseSchema(addDomainsResponse)),
            ...commonErrors,
            "413": error("PayloadTooLarge"),
            "415": error("UnsupportedMediaType"),
          },
        },
      },
      "/domains/{name}": {
        delete: {
          operationId: "removeDomain",
          summary: "Remove a domain from the watchlist (soft delete).",
          parameters: [pathParameter("name", "The domain name (ASCII or Unicode).")],
          responses: {
            "200": jsonResponse("The name was removed.", responseSchema(removeDomainResponse)),
            ...commonErrors,
            "404": error("NotFound"),
          },
        },
      },
      "/check/{domain}": {
        get: {
          operationId: "checkDomain",
          summary: "Live availability check of one registrable domain through RDAP and DNS.",
          parameters: [pathParameter("domain", "The domain name (ASCII or Unicode).")],
          responses: {
            "200": jsonResponse(
              "The availability result. Upstream failures are a 200 with status unknown and a reason.",
              responseSchema(checkResult),
            ),
            ...commonErrors,
          },
        },
      },
    },
    webhooks: webhookOperations(),
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key" } },
      schemas: { Error: responseSchema(errorBody) },
      responses: {
        InvalidRequest: errorResponseSpec("The request is not valid; details lists what was wrong."),
        Unauthorized: errorResponseSpec("The API key is missing, unknown or revoked."),
        UpgradeRequired: errorResponseSpec("The account's plan has no API access (Free)."),
        NotFound: errorResponseSpec("The domain is not on the active watchlist."),
        PayloadTooLarge: errorResponseSpec("The body is larger than 1 MiB."),
        UnsupportedMediaType: errorResponseSpec("The body is not JSON."),
        RateLimited: {
          ...errorResponseSpec("The daily request limit is used up; reset_at says when it resets."),
          headers: { ...requestIdHeaderSpec, ...rateLimitHeaderSpecs, ...retryAfterHeaderSpec },
        },
        Internal: errorResponseSpec("An unexpected error; the body carries a request id."),
        ServiceUnavailable: {
          ...errorResponseSpec("The database cannot be reached right now; retry after Retry-After seconds."),
          headers: { ...requestIdHeaderSpec, ...retryAfterHeaderSpec },
        },
      },
    },
  };
}

/** What each event's entry under `webhooks` says (its body's schema is the contract module's). */
const webhookDocs: Record<AlertEventName, { operationId: string; summary: string; description: string }> = {
  "domain.available": {
    operationId: "domainAvailable",
    summary: "A watched domain became available (sent to each enabled webhook, Pro and higher).",
    description: "Success is a 2xx within 10 s; redirects are not followed. Anything else is retried " +
      "for about a day under the same delivery id. Delivery is at least once: deduplicate on " +
      "X-Service-Delivery (= webhook-id). data.evidence says why the service believes the name is free.",
  },
  "domain.pending_delete": {
    operationId: "domainPendingDelete",
    summary: "A watched domain entered pending delete or redemption (only to endpoints that list the " +
      "event in event_types).",
    description: "Raised once per transition into pending delete, with the predicted drop time and how " +
      "it was predicted. Delivered, signed and retried like domain.available.",
  },
  "domain.restored": {
    operationId: "domainRestored",
    summary: "A watched domain in pending delete went back to registered: the drop is off (only to " +
      "endpoints that list the event in event_types).",
    description: "Raised once per transition from pending delete to registered. Delivered, signed and " +
      "retried like domain.available.",
  },
  "domain.registered": {
    operationId: "domainRegistered",
    summary: "A watched domain that was available, or never found registered since it was added, is now " +
      "registered (only to endpoints that list the event in event_types).",
    description: "Raised once per transition, with the registrar when the registry names it. Delivered, " +
      "signed and retried like domain.available.",
  },
  "domain.expiring": {
    operationId: "domainExpiring",
    summary: "A watched domain's expiration date is near (only to endpoints that list the event in " +
      "event_types).",
    description: "Sent once at each of the endpoint's expiring_days (default 30, 7 and 1) before the " +
      "expiration date; a name first seen inside several gets one, for the nearest one passed. A renewal " +
      "that moves the date re-arms them. Delivered, signed and retried like domain.available.",
  },
};

function webhookOperations(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(alertEventSchemas).map(([type, schema]) => {
      const doc = webhookDocs[type as AlertEventName];
      return [type, {
        post: {
          ...doc,
          parameters: webhookHeaderParameters(),
          requestBody: {
            required: true,
            content: { "application/json": { schema: responseSchema(schema) } },
          },
          responses: { "200": { description: "Received (any 2xx)." } },
        },
      }];
    }),
  );
}

function webhookHeaderParameters(): JsonSchema[] {
  return Object.entries(webhookRequestHeaders).map(([name, header]) => ({
    name,
    in: "header",
    required: header.required,
    description: header.description,
    schema: header.pattern === undefined ? { type: "string" } : { type: "string", pattern: header.pattern },
  }));
}

function errorResponseSpec(description: string) {
  return {
    description,
    headers: requestIdHeaderSpec,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
}
