/**
 * Where a name is in a registration's lifecycle, for the name's page: registered → expired → redemption →
 * pending delete → available. Read from the name's state (status, expiry date, prediction basis). Pure
 * (tests/unit/app_radar.test.ts).
 */
import type { WatchedDomain } from "./types.ts";

export const lifecycleStages = [
  { id: "registered", label: "Registered", help: "Someone holds the name." },
  { id: "expired", label: "Expired", help: "Past its expiry date; the holder can still renew it." },
  {
    id: "redemption",
    label: "Redemption",
    help: "Deleted by the registrar; the holder can still restore it.",
  },
  {
    id: "pending_delete",
    label: "Pending delete",
    help: "Nobody can restore it now; the registry releases it at the drop.",
  },
  { id: "available", label: "Available", help: "Anyone can register it." },
] as const;

export type LifecycleStage = typeof lifecycleStages[number]["id"];

/** The stage the name is in, or null when its status is unknown. */
export function lifecycleStage(
  domain: Pick<WatchedDomain, "status" | "expires_at" | "prediction_basis">,
  now: Date,
): LifecycleStage | null {
  switch (domain.status) {
    case "available":
      return "available";
    case "pending_delete":
      return domain.prediction_basis === "redemption_period" ? "redemption" : "pending_delete";
    case "registered": {
      const expires = domain.expires_at ? new Date(domain.expires_at).getTime() : NaN;
      return !Number.isNaN(expires) && expires <= now.getTime() ? "expired" : "registered";
    }
    default:
      return null;
  }
}
