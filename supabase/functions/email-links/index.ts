// email-links: the confirmation and one-click unsubscribe links of alert mails (no session). Wiring only.
import { emailLinksApp } from "../_shared/email_links/handler.ts";
import { databaseEmailLinkStore } from "../_shared/email_links/store.ts";

Deno.serve(emailLinksApp(databaseEmailLinkStore()).fetch);
