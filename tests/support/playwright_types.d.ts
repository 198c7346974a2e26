// deno-lint-ignore-file no-explicit-any
/**
 * The part of playwright-core's API the browser tests use, loosely typed. playwright-core's own types
 * reference `@types/node`, which Deno 2.1 would add to deno.lock (the tested graph) for type checks only;
 * `tests/support/browser.ts` imports playwright-core with these types instead (`@ts-types`).
 */
export interface Locator {
  click(options?: Record<string, unknown>): Promise<void>;
  fill(value: string): Promise<void>;
  inputValue(): Promise<string>;
  textContent(): Promise<string | null>;
  allTextContents(): Promise<string[]>;
  check(): Promise<void>;
  count(): Promise<number>;
  innerText(): Promise<string>;
  getAttribute(name: string): Promise<string | null>;
  selectOption(value: string): Promise<unknown>;
  waitFor(
    options?: { state?: "attached" | "detached" | "visible" | "hidden"; timeout?: number },
  ): Promise<void>;
  first(): Locator;
  isVisible(): Promise<boolean>;
  screenshot(options?: { path?: string }): Promise<Uint8Array>;
  filter(options: { hasText?: string | RegExp }): Locator;
  getByRole(role: string, options?: { name?: string | RegExp; exact?: boolean }): Locator;
  getByText(text: string | RegExp, options?: { exact?: boolean }): Locator;
  getByLabel(text: string | RegExp, options?: { exact?: boolean }): Locator;
}

export interface APIResponse {
  headers(): Record<string, string>;
}

export interface Route {
  request(): { url(): string };
  fetch(): Promise<APIResponse>;
  fulfill(
    response: {
      status?: number;
      contentType?: string;
      body?: string;
      response?: APIResponse;
      headers?: Record<string, string>;
    },
  ): Promise<void>;
}

export interface FrameLocator extends Pick<Locator, "getByRole" | "getByText" | "getByLabel"> {
  locator(selector: string): Locator;
}

export interface Download {
  suggestedFilename(): string;
  path(): Promise<string | null>;
}

export interface Page extends Pick<Locator, "getByRole" | "getByText" | "getByLabel"> {
  goto(url: string): Promise<unknown>;
  keyboard: { press(key: string): Promise<void>; type(text: string): Promise<void> };
  reload(): Promise<unknown>;
  url(): string;
  content(): Promise<string>;
  locator(selector: string): Locator;
  frameLocator(selector: string): FrameLocator;
  emulateMedia(options: { colorScheme?: "light" | "dark" | null }): Promise<void>;
  waitForTimeout(ms: number): Promise<void>;
  route(url: string, handler: (route: Route) => Promise<void> | void): Promise<void>;
  waitForURL(url: string): Promise<void>;
  waitForEvent(event: "download"): Promise<Download>;
  waitForLoadState(state?: "load" | "domcontentloaded" | "networkidle"): Promise<void>;
  screenshot(options?: { path?: string; fullPage?: boolean }): Promise<unknown>;
  setViewportSize(size: { width: number; height: number }): Promise<void>;
  setDefaultTimeout(ms: number): void;
  evaluate<T>(work: (() => T | Promise<T>) | string): Promise<T>;
  addScriptTag(options: { content: string }): Promise<unknown>;
  on(event: "console", listener: (message: { type(): string; text(): string }) => void): void;
  on(event: "pageerror", listener: (error: Error) => void): void;
  on(
    event: "requestfinished",
    listener: (request: { url(): string; timing(): { startTime: number; responseEnd: number } }) => void,
  ): void;
  close(): Promise<void>;
}

export interface BrowserContext {
  newPage(): Promise<Page>;
  setDefaultTimeout(ms: number): void;
  close(): Promise<void>;
}

export interface Browser {
  newContext(options?: Record<string, unknown>): Promise<BrowserContext>;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export declare const chromium: {
  launch(options: { executablePath: string; args?: string[]; headless?: boolean }): Promise<Browser>;
};

export type Any = any;
