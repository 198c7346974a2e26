/** The link functions in the database (service_role): confirm an extra address, stop an unsubscribed one. */
import { asService, type TransactionRunner } from "../db/client.ts";
import type { EmailLinkStore } from "./handler.ts";

export function databaseEmailLinkStore(run: TransactionRunner = asService): EmailLinkStore {
  return {
    confirm: (token) =>
      run(async (tx) => {
        const [row] = await tx<{ status: "confirmed" | "invalid" }[]>`
          select private.confirm_email_address(${token}) as status`;
        return row.status;
      }),
    unsubscribe: (token) =>
      run(async (tx) => {
        const [row] = await tx<{ status: "unsubscribed" | "invalid" }[]>`
          select private.unsubscribe_email_address(${token}) as status`;
        return row.status;
      }),
  };
}
