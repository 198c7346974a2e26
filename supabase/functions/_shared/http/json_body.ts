/** Reads a JSON request body with the API's rules: JSON content type, at most 1 MiB, well-formed. */
import { ApiError } from "./errors.ts";

import { maxBodyBytes } from "../contract/limits.ts";

export async function readJsonBody(request: Request): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type.trim())) {
    throw new ApiError(
      "unsupported_media_type",
      "Send the body as JSON with Content-Type: application/json.",
    );
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBodyBytes) throw tooLarge();
  const bytes = await readAtMost(request, maxBodyBytes);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("invalid_request", "The body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The body is not valid JSON.");
  }
}

function tooLarge(): ApiError {
  return new ApiError("payload_too_large", `The body is larger than ${maxBodyBytes} bytes.`);
}

async function readAtMost(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
