/**
 * The local mailbox's SMTP side (as `supabase start`'s Mailpit listens on 54325): plain SMTP (RFC 5321:
 * EHLO/HELO, AUTH PLAIN/LOGIN accepting any credentials as Mailpit's `--smtp-auth-accept-any`, MAIL, RCPT,
 * DATA, RSET, NOOP, QUIT), on a loopback address only. Each mail received is parsed (./mime.ts) and kept in
 * the mailbox's store (./store.ts), so the mailbox page and its Mailpit-shaped API show it.
 *
 * `rejectRecipient` lets a test make the server refuse a recipient with a reply of its choice (e.g.
 * `550 5.1.1 No such user`), as a real provider does for a dead address.
 */
import { parseAddress, parseMail } from "./mime.ts";
import { receive, type StoredMail } from "./store.ts";

export interface SmtpOptions {
  port: number;
  /** A loopback address (default 127.0.0.1); anything else is refused. */
  hostname?: string;
  /** A reply (`5yz …` or `4yz …`) to refuse a recipient with, or null to accept it. */
  rejectRecipient?: (address: string) => string | null;
  /** Called with each mail kept. */
  onMail?: (mail: StoredMail) => void;
  /**
   * Implicit TLS from the first byte (as a provider's port 465) with this certificate; tests only (the local
   * stack's 54325 is plain, as Mailpit's).
   */
  tls?: { cert: string; key: string };
}

export interface RunningSmtp {
  port: number;
  /** `smtp://127.0.0.1:<port>` (`smtps://` with `tls`) */
  url: string;
  close(): Promise<void>;
}

const maxMessageBytes = 10 * 1024 * 1024;

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

const toBinary = (bytes: Uint8Array) => {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
};

function pathAddress(argument: string): string {
  const match = argument.match(/<([^>]*)>/);
  return (match ? match[1] : argument.split(/\s+/)[0] ?? "").trim();
}

function canonicalHeaderName(name: string): string {
  return name.split("-").map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("-");
}

/** Keeps one mail from its DATA section (dot-unstuffed), with the envelope's recipients. */
function store(raw: string, recipients: string[]): StoredMail {
  const parsed = parseMail(raw);
  const header = (name: string) => parsed.headers.get(name)?.[0] ?? "";
  const headers: Record<string, string[]> = {};
  for (const [name, values] of parsed.headers) headers[canonicalHeaderName(name)] = values;
  const to = header("to") ? header("to").split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).map(parseAddress) : [];
  return receive({
    messageId: header("message-id").replace(/^<|>$/g, "") || null,
    from: parseAddress(header("from")),
    to: to.length > 0 ? to : recipients.map((address) => ({ Name: "", Address: address })),
    subject: header("subject"),
    text: parsed.text,
    html: parsed.html,
    headers,
  });
}

async function session(connection: Deno.Conn, options: SmtpOptions): Promise<void> {
  const encoder = new TextEncoder();
  const reply = (line: string) => connection.write(encoder.encode(`${line}\r\n`));
  let buffer = "";
  let inData = false;
  let authStep: "none" | "login-user" | "login-pass" | "plain" = "none";
  let from: string | null = null;
  let recipients: string[] = [];
  const reset = () => {
    from = null;
    recipients = [];
  };

  await reply("220 localhost ESMTP local mailbox");
  const chunk = new Uint8Array(64 * 1024);
  while (true) {
    const read = await connection.read(chunk);
    if (read === null) return;
    buffer += toBinary(chunk.subarray(0, read));
    while (true) {
      if (inData) {
        const end = buffer.startsWith(".\r\n") ? 0 : buffer.indexOf("\r\n.\r\n");
        if (end < 0) {
          if (buffer.length > maxMessageBytes) {
            await reply("552 5.3.4 Message too big");
            return;
          }
          break;
        }
        const raw = end === 0 ? "" : buffer.slice(0, end + 2);
        buffer = buffer.slice(end === 0 ? 3 : end + 5);
        inData = false;
        const mail = store(raw.replace(/^\.\./gm, "."), recipients);
        options.onMail?.(mail);
        await reply(`250 2.0.0 Ok: queued as ${mail.ID}`);
        reset();
        continue;
      }
      const newline = buffer.indexOf("\r\n");
      if (newline < 0) break;
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 2);
      if (authStep !== "none") {
        if (authStep === "login-user") {
          authStep = "login-pass";
          await reply("334 UGFzc3dvcmQ6");
        } else {
          authStep = "none";
          await reply("235 2.7.0 Authentication successful");
        }
        continue;
      }
      const space = line.indexOf(" ");
      const verb = (space < 0 ? line : line.slice(0, space)).toUpperCase();
      const argument = space < 0 ? "" : line.slice(space + 1);
      switch (verb) {
        case "EHLO":
          await reply("250-localhost");
          await reply(`250-SIZE ${maxMessageBytes}`);
          await reply("250-8BITMIME");
          await reply("250-SMTPUTF8");
          await reply("250-AUTH PLAIN LOGIN");
          await reply("250 ENHANCEDSTATUSCODES");
          break;
        case "HELO":
          await reply("250 localhost");
          break;
        case "AUTH": {
          const [mechanism, initial] = argument.split(/\s+/);
          if (mechanism?.toUpperCase() === "PLAIN") {
            if (initial) await reply("235 2.7.0 Authentication successful");
            else {
              authStep = "plain";
              await reply("334 ");
            }
          } else if (mechanism?.toUpperCase() === "LOGIN") {
            authStep = initial ? "login-pass" : "login-user";
            await reply(initial ? "334 UGFzc3dvcmQ6" : "334 VXNlcm5hbWU6");
          } else {
            await reply("504 5.5.4 Unrecognized authentication type");
          }
          break;
        }
        case "MAIL":
          reset();
          from = pathAddress(argument.replace(/^FROM:/i, ""));
          await reply("250 2.1.0 Ok");
          break;
        case "RCPT": {
          if (from === null) {
            await reply("503 5.5.1 Error: need MAIL command");
            break;
          }
          const address = pathAddress(argument.replace(/^TO:/i, ""));
          const refusal = options.rejectRecipient?.(address) ?? null;
          if (refusal !== null) {
            await reply(refusal);
            break;
          }
          recipients.push(address);
          await reply("250 2.1.5 Ok");
          break;
        }
        case "DATA":
          if (recipients.length === 0) {
            await reply("554 5.5.1 Error: no valid recipients");
            break;
          }
          inData = true;
          await reply("354 End data with <CR><LF>.<CR><LF>");
          break;
        case "RSET":
          reset();
          await reply("250 2.0.0 Ok");
          break;
        case "NOOP":
          await reply("250 2.0.0 Ok");
          break;
        case "QUIT":
          await reply("221 2.0.0 Bye");
          return;
        default:
          await reply("502 5.5.2 Error: command not recognized");
      }
    }
  }
}

/** Listens for SMTP on a loopback address (`port` 0: a free one). */
export function startSmtp(options: SmtpOptions): RunningSmtp {
  const hostname = options.hostname ?? "127.0.0.1";
  if (!isLoopback(hostname)) {
    throw new Error(`The local mailbox's SMTP listens on loopback only, not ${hostname}`);
  }
  const listener: Deno.Listener = options.tls
    ? Deno.listenTls({ hostname, port: options.port, cert: options.tls.cert, key: options.tls.key })
    : Deno.listen({ hostname, port: options.port, transport: "tcp" });
  const port = (listener.addr as Deno.NetAddr).port;
  const open = new Set<Deno.Conn>();
  const accepting = (async () => {
    for await (const connection of listener) {
      open.add(connection);
      session(connection, options)
        .catch(() => {})
        .finally(() => {
          open.delete(connection);
          try {
            connection.close();
          } catch {
            // already closed
          }
        });
    }
  })().catch(() => {});
  return {
    port,
    url: `${options.tls ? "smtps" : "smtp"}://${hostname}:${port}`,
    async close() {
      listener.close();
      for (const connection of open) {
        try {
          connection.close();
        } catch {
          // already closed
        }
      }
      await accepting;
    },
  };
}
