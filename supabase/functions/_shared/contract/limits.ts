/** The API's size limits: one place for validation, services, OpenAPI and the MCP tool descriptions. */

/** Names per `POST /domains` or `add_domains` call. */
export const maxBatchSize = 500;

/** Watchlist page sizes (`limit`). */
export const defaultPageSize = 50;
export const maxPageSize = 200;

/** The longest cursor (a domain name) a page request may carry. */
export const maxCursorLength = 253;

/** The largest JSON request body, in bytes (1 MiB); larger is 413 `payload_too_large`. */
export const maxBodyBytes = 1024 * 1024;
