/**
 * The local mailbox on http://127.0.0.1:54324 (as `supabase start`'s mail catcher): a page listing every
 * mail the local Auth would send and every mail received on its SMTP port (54325, ./smtp.ts), each one readable, and the part of Mailpit's JSON API tests use
 * (github.com/axllent/mailpit `server/apiv1`):
 * - `GET /api/v1/messages[?start=&limit=]`: `{total, unread, count, messages_count, messages_unread, start,
 *   tags, messages: [{ID, MessageID, Read, From, To, Cc, Bcc, ReplyTo, Subject, Created, Username, Tags,
 *   Size, Attachments, Snippet}]}`, newest first;
 * - `GET /api/v1/search?query=` (`to:<address>`, `subject:<text>`, else words in subject or text): the same
 *   shape;
 * - `GET /api/v1/message/{ID}` (or `latest`): `{ID, MessageID, From, To, Cc, Bcc, ReplyTo, ReturnPath,
 *   Subject, Date, Tags, Text, HTML, Size, Inline, Attachments}`; marks it read;
 * - `GET /api/v1/message/{ID}/headers`: `{"<Header-Name>": ["value", …]}` (mails received over SMTP);
 * - `DELETE /api/v1/messages` (body `{"IDs": [...]}`, or none for all): `ok`.
 */
import { allMails, deleteMails, mailById, type StoredMail } from "./store.ts";

function summary(mail: StoredMail): Record<string, unknown> {
  return {
    ID: mail.ID,
    MessageID: mail.MessageID,
    Read: mail.Read,
    From: mail.From,
    To: mail.To,
    Cc: [],
    Bcc: [],
    ReplyTo: [],
    Subject: mail.Subject,
    Created: mail.Created,
    Username: "",
    Tags: mail.Tags,
    Size: mail.Text.length + mail.HTML.length,
    Attachments: 0,
    Snippet: mail.Text.replace(/\s+/g, " ").trim().slice(0, 250),
  };
}

/** Mailpit's `ListUnsubscribe`: the header, its links, and `List-Unsubscribe-Post`. */
function listUnsubscribe(mail: StoredMail): Record<string, unknown> {
  const header = mail.Headers["List-Unsubscribe"]?.[0] ?? "";
  return {
    Header: header,
    Links: [...header.matchAll(/<([^>]+)>/g)].map((match) => match[1]),
    Errors: "",
    HeaderPost: mail.Headers["List-Unsubscribe-Post"]?.[0] ?? "",
  };
}

function message(mail: StoredMail): Record<string, unknown> {
  return {
    ID: mail.ID,
    MessageID: mail.MessageID,
    From: mail.From,
    To: mail.To,
    Cc: [],
    Bcc: [],
    ReplyTo: [],
    ReturnPath: mail.From.Address,
    Subject: mail.Subject,
    ListUnsubscribe: listUnsubscribe(mail),
    Date: mail.Created,
    Tags: mail.Tags,
    Username: "",
    Text: mail.Text,
    HTML: mail.HTML,
    Size: mail.Text.length + mail.HTML.length,
    Inline: [],
    Attachments: [],
  };
}

function matches(mail: StoredMail, query: string): boolean {
  return query.trim().split(/\s+/).filter(Boolean).every((term) => {
    const [field, ...rest] = term.split(":");
    const value = rest.join(":").toLowerCase();
    if (rest.length > 0 && field === "to") return mail.To.some((to) => to.Address.toLowerCase() === value);
    if (rest.length > 0 && field === "subject") return mail.Subject.toLowerCase().includes(value);
    const text = `${mail.Subject} ${mail.Text}`.toLowerCase();
    return text.includes(term.toLowerCase());
  });
}

function listing(mails: readonly StoredMail[], url: URL): Response {
  const start = Math.max(0, Number(url.searchParams.get("start")) || 0);
  const limit = Math.max(1, Number(url.searchParams.get("limit")) || 50);
  const page = mails.slice(start, start + limit);
  const unread = mails.filter((mail) => !mail.Read).length;
  return Response.json({
    total: allMails().length,
    unread: allMails().filter((mail) => !mail.Read).length,
    count: page.length,
    messages_count: mails.length,
    messages_unread: unread,
    start,
    tags: [],
    messages: page.map(summary),
  });
}

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(body: string): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local mailbox</title>
<style>body{font:15px system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}
.mail{border:1px solid #ddd;padding:1rem}</style></head><body>
<h1><a href="/">Local mailbox</a></h1>${body}</body></html>`,
    {
      headers: {
        "content-type": "text/html; charset=utf-8",
        // The mails' HTML is shown as written; nothing runs in it.
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
      },
    },
  );
}

function indexPage(): Response {
  const rows = allMails().map((mail) =>
    `<tr><td>${escape(mail.Created)}</td><td>${escape(mail.To.map((to) => to.Address).join(", "))}</td>` +
    `<td><a href="/view/${encodeURIComponent(mail.ID)}">${escape(mail.Subject)}</a></td></tr>`
  ).join("");
  return page(
    allMails().length === 0
      ? "<p>No mail yet. Every mail the local Auth sends (sign-up confirmation, magic link, recovery, invitation) lands here.</p>"
      : `<table><thead><tr><th>Received</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

function mailPage(mail: StoredMail): Response {
  mail.Read = true;
  return page(
    `<p>From ${escape(mail.From.Address)} to ${escape(mail.To.map((to) => to.Address).join(", "))}, ${
      escape(mail.Created)
    }</p><h2>${escape(mail.Subject)}</h2><div class="mail">${mail.HTML}</div>`,
  );
}

export async function handleMailboxRequest(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (request.method === "GET" && path === "/") return indexPage();
  const view = path.match(/^\/view\/([^/]+)$/);
  if (request.method === "GET" && view) {
    const mail = mailById(decodeURIComponent(view[1]));
    return mail ? mailPage(mail) : new Response("Message not found", { status: 404 });
  }
  if (path === "/api/v1/messages" && request.method === "GET") return listing(allMails(), url);
  if (path === "/api/v1/search" && request.method === "GET") {
    return listing(allMails().filter((mail) => matches(mail, url.searchParams.get("query") ?? "")), url);
  }
  if (path === "/api/v1/messages" && request.method === "DELETE") {
    let ids: string[] = [];
    try {
      const body = await request.json();
      if (Array.isArray(body?.IDs)) ids = body.IDs.filter((id: unknown) => typeof id === "string");
    } catch {
      // No body: delete all, as Mailpit does.
    }
    deleteMails(ids);
    return new Response("ok", { headers: { "content-type": "text/plain" } });
  }
  const headers = path.match(/^\/api\/v1\/message\/([^/]+)\/headers$/);
  if (headers && request.method === "GET") {
    const mail = mailById(decodeURIComponent(headers[1]));
    return mail ? Response.json(mail.Headers) : new Response("Message not found", { status: 404 });
  }
  const one = path.match(/^\/api\/v1\/message\/([^/]+)$/);
  if (one && request.method === "GET") {
    const mail = mailById(decodeURIComponent(one[1]));
    if (!mail) return new Response("Message not found", { status: 404 });
    mail.Read = true;
    return Response.json(message(mail));
  }
  return new Response("Not found", { status: 404 });
}

export interface RunningMailbox {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves the mailbox on `port` (0: a free one) of 127.0.0.1. */
export function startMailbox(options: { port: number; hostname?: string }): RunningMailbox {
  const hostname = options.hostname ?? "127.0.0.1";
  const server = Deno.serve({ port: options.port, hostname, onListen: () => {} }, handleMailboxRequest);
  const port = (server.addr as Deno.NetAddr).port;
  return { url: `http://${hostname}:${port}`, port, close: () => server.shutdown() };
}
