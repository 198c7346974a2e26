/**
 * The rules a webhook URL must meet before any DNS look-up (the database applies the same ones when a URL
 * is saved: `public.webhook_url_problem`): https (http only when private targets are allowed), a host
 * that is not this machine, not a single-label or metadata name, and, for an IP literal, a public address.
 */
import { classifyAddress } from "./address_policy.ts";

export type WebhookUrlVerdict =
  | { ok: true; url: URL; host: string; kind: "ip" | "name" | "localhost" }
  | { ok: false; problem: string };

const METADATA_NAMES = new Set(["metadata.google.internal"]);

export function judgeWebhookUrl(text: string, allowPrivateTargets: boolean): WebhookUrlVerdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse("The webhook URL is not a valid absolute URL.");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowPrivateTargets)) {
    return refuse("Webhook URLs must use https.");
  }
  // URL parsing has already turned 2130706433, 0x7f.1 and 127.1 into 127.0.0.1, and IPv6 into [canonical].
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") return refuse("The webhook URL has no host.");

  const addressKind = classifyAddress(host);
  if (addressKind !== "invalid") {
    if (addressKind === "public" || (addressKind === "loopback" && allowPrivateTargets)) {
      return { ok: true, url, host: host.replace(/^\[|\]$/g, ""), kind: "ip" };
    }
    return refuse(
      addressKind === "loopback"
        ? "Webhook URLs must not point at a loopback address."
        : "Webhook URLs must not point at a private, link-local or reserved address.",
    );
  }
  if (host === "localhost" || host.endsWith(".localhost")) {
    return allowPrivateTargets
      ? { ok: true, url, host, kind: "localhost" }
      : refuse("Webhook URLs must not point at this machine (localhost).");
  }
  if (!host.includes(".") || METADATA_NAMES.has(host)) {
    return refuse("The webhook host must be a public DNS name.");
  }
  return { ok: true, url, host, kind: "name" };
}

function refuse(problem: string): WebhookUrlVerdict {
  return { ok: false, problem };
}
