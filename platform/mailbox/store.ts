/**
 * The local mailbox's store: every mail the local Auth stand-in would send, and every mail received over
 * its SMTP port (./smtp.ts: the alert mails), kept in this process's memory
 * (as `supabase start`'s mail catcher keeps them; a restart forgets them), newest first, at most
 * `maxMessages`. Shaped as Mailpit's messages (github.com/axllent/mailpit `internal/storage`).
 */

export interface Address {
  Name: string;
  Address: string;
}

export interface StoredMail {
  ID: string;
  MessageID: string;
  From: Address;
  To: Address[];
  Subject: string;
  Created: string;
  Text: string;
  HTML: string;
  Read: boolean;
  /** What the Auth stand-in sent it for: `signup`, `magiclink`, `recovery`, `invite`, `email_change`. */
  Tags: string[];
  /** Every header as received (names as Mailpit shows them: canonical case), for SMTP mails. */
  Headers: Record<string, string[]>;
}

export const localSender: Address = { Name: "Domain Watchlist (local)", Address: "noreply@localhost" };
const maxMessages = 1000;
const messages: StoredMail[] = [];

function shortId(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
    .replace(/[+/=]/g, "").slice(0, 22);
}

/** Keeps one mail; returns it. */
export function deliver(
  mail: { to: string; subject: string; text: string; html: string; tag: string },
): StoredMail {
  const id = shortId();
  const stored: StoredMail = {
    ID: id,
    MessageID: `${id}@localhost`,
    From: localSender,
    To: [{ Name: "", Address: mail.to }],
    Subject: mail.subject,
    Created: new Date().toISOString(),
    Text: mail.text,
    HTML: mail.html,
    Read: false,
    Tags: [mail.tag],
    Headers: {},
  };
  return keep(stored);
}

function keep(stored: StoredMail): StoredMail {
  messages.unshift(stored);
  messages.length = Math.min(messages.length, maxMessages);
  return stored;
}

/** Keeps one mail received over SMTP (already parsed); returns it. */
export function receive(mail: {
  messageId: string | null;
  from: Address;
  to: Address[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string[]>;
}): StoredMail {
  const id = shortId();
  return keep({
    ID: id,
    MessageID: mail.messageId ?? `${id}@localhost`,
    From: mail.from,
    To: mail.to,
    Subject: mail.subject,
    Created: new Date().toISOString(),
    Text: mail.text,
    HTML: mail.html,
    Read: false,
    Tags: [],
    Headers: mail.headers,
  });
}

export function allMails(): readonly StoredMail[] {
  return messages;
}

export function mailById(id: string): StoredMail | undefined {
  return id === "latest" ? messages[0] : messages.find((mail) => mail.ID === id);
}

/** Deletes the given mails, or all of them when `ids` is empty. */
export function deleteMails(ids: string[] = []): void {
  if (ids.length === 0) {
    messages.length = 0;
    return;
  }
  const remove = new Set(ids);
  const kept = messages.filter((mail) => !remove.has(mail.ID));
  messages.length = 0;
  messages.push(...kept);
}
