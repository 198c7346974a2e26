/**
 * export-account: the whole account as one JSON document, downloaded as an attachment. The document is
 * built by `export_account(user id)` in SQL (service_role only, so only this rate-limited endpoint can build
 * it; the account is the verified JWT's), with the email channels' settings from `export_email_channels`
 * beside it, and never holds a secret (API keys or their hashes, webhook URLs or secrets, Telegram chat IDs,
 * invitation tokens) or an alert email address.
 */
import { asService } from "../db/client.ts";
import { inDatabase } from "../http/in_database.ts";
import type { SessionContext } from "../session/middleware.ts";

export type AccountExport = Record<string, unknown> & { format_version: number; exported_at: string };

export function exportAccount(userId: string): Promise<AccountExport> {
  return inDatabase(async () => {
    const [row] = await asService(
      (tx) =>
        tx<{ document: AccountExport; email_channels: unknown[] }[]>`
          select private.export_account(${userId}) as document,
                 private.export_email_channels(${userId}) as email_channels`,
    );
    // jsonb keeps its own key order; put the document's version and date first for people reading it.
    const { format_version, exported_at, ...sections } = row.document;
    return { format_version, exported_at, ...sections, email_channels: row.email_channels };
  });
}

/** `domain-watchlist-export-<YYYY-MM-DD>.json`, dated in UTC by the export time. */
export function exportFileName(exportedAt: string): string {
  const date = new Date(exportedAt);
  const day = Number.isNaN(date.getTime()) ? new Date() : date;
  return `domain-watchlist-export-${day.toISOString().slice(0, 10)}.json`;
}

export async function exportAccountHandler(c: SessionContext): Promise<Response> {
  const document = await exportAccount(c.get("userId"));
  return c.body(`${JSON.stringify(document, null, 2)}\n`, 200, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Disposition": `attachment; filename="${exportFileName(document.exported_at)}"`,
    "Cache-Control": "no-store",
  });
}
