/**
 * Reads a received mail (RFC 5322 with MIME, RFC 2045-2047) as far as the local mailbox shows it: the
 * headers (unfolded, encoded words decoded), and the first text/plain and text/html parts (7bit, 8bit,
 * quoted-printable or base64; UTF-8 or Latin-1), walking multipart/* bodies. Pure; no I/O.
 */

export interface ParsedMail {
  /** Header names lower-cased, values unfolded and decoded, in order of appearance. */
  headers: Map<string, string[]>;
  text: string;
  html: string;
}

interface Part {
  headers: Map<string, string[]>;
  body: string;
}

const decoderFor = (charset: string) => {
  try {
    return new TextDecoder(charset.toLowerCase() || "utf-8");
  } catch {
    return new TextDecoder("utf-8");
  }
};

/** The body's bytes as a binary string (one char per byte) → text in `charset`. */
function bytesToText(binary: string, charset: string): string {
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0) & 0xff);
  return decoderFor(charset).decode(bytes);
}

function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, "").replace(
    /=([0-9A-Fa-f]{2})/g,
    (_, hex) => String.fromCharCode(parseInt(hex, 16)),
  );
}

function decodeBase64(text: string): string {
  try {
    return atob(text.replace(/[^A-Za-z0-9+/=]/g, ""));
  } catch {
    return "";
  }
}

/** RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`); whitespace between two of them is dropped. */
export function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, "$1")
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, charset: string, encoding: string, data: string) => {
      const binary = encoding.toUpperCase() === "B"
        ? decodeBase64(data)
        : decodeQuotedPrintable(data.replace(/_/g, " "));
      return bytesToText(binary, charset.split("*")[0]);
    });
}

function splitHeadersAndBody(raw: string): { head: string; body: string } {
  const match = raw.match(/\r?\n\r?\n/);
  if (!match || match.index === undefined) return { head: raw, body: "" };
  return { head: raw.slice(0, match.index), body: raw.slice(match.index + match[0].length) };
}

function parseHeaders(head: string): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = decodeEncodedWords(line.slice(colon + 1).trim());
    headers.set(name, [...(headers.get(name) ?? []), value]);
  }
  return headers;
}

/** `text/plain; charset="utf-8"` → type and parameters (names lower-cased). */
function contentType(headers: Map<string, string[]>): { type: string; params: Record<string, string> } {
  const value = headers.get("content-type")?.[0] ?? "text/plain; charset=us-ascii";
  const [type, ...rest] = value.split(";");
  const params: Record<string, string> = {};
  for (const param of rest) {
    const eq = param.indexOf("=");
    if (eq < 0) continue;
    params[param.slice(0, eq).trim().toLowerCase()] = param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
  }
  return { type: type.trim().toLowerCase(), params };
}

function parts(raw: string): Part[] {
  const { head, body } = splitHeadersAndBody(raw);
  const headers = parseHeaders(head);
  const { type, params } = contentType(headers);
  if (!type.startsWith("multipart/") || !params.boundary) return [{ headers, body }];
  const delimiter = `--${params.boundary}`;
  const sections = body.split(new RegExp(`\\r?\\n?${delimiter.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  const children: Part[] = [];
  for (const section of sections.slice(1)) {
    if (section.startsWith("--")) break;
    children.push(...parts(section.replace(/^[ \t]*\r?\n/, "")));
  }
  return children;
}

function decodedBody(part: Part): string {
  const encoding = (part.headers.get("content-transfer-encoding")?.[0] ?? "7bit").toLowerCase();
  const charset = contentType(part.headers).params.charset ?? "utf-8";
  if (encoding === "base64") return bytesToText(decodeBase64(part.body), charset);
  if (encoding === "quoted-printable") return bytesToText(decodeQuotedPrintable(part.body), charset);
  // 7bit/8bit: the SMTP server kept the bytes as a binary string.
  return bytesToText(part.body, charset);
}

/** Parses one received mail (the DATA section, dot-unstuffed, as a binary string). */
export function parseMail(raw: string): ParsedMail {
  const { head } = splitHeadersAndBody(raw);
  const headers = parseHeaders(head);
  let text = "";
  let html = "";
  for (const part of parts(raw)) {
    const { type } = contentType(part.headers);
    const disposition = part.headers.get("content-disposition")?.[0]?.toLowerCase() ?? "";
    if (disposition.startsWith("attachment")) continue;
    if (type === "text/plain" && text === "") text = decodedBody(part).replace(/\r\n/g, "\n");
    else if (type === "text/html" && html === "") html = decodedBody(part).replace(/\r\n/g, "\n");
  }
  return { headers, text, html };
}

/** `"Name" <a@b>` / `a@b` → name and address. */
export function parseAddress(value: string): { Name: string; Address: string } {
  const angle = value.match(/^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/);
  if (angle) return { Name: angle[1].trim(), Address: angle[2].trim() };
  return { Name: "", Address: value.trim() };
}
