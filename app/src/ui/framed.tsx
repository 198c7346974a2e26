/**
 * Inside another page's frame the app shows only a link to open it in its own window: no sign-in form, no
 * Approve on the consent page (clickjacking). The host's headers already refuse framing
 * (platform/app_host/headers.ts); this holds where a host cannot send them.
 */
export function isFramed(): boolean {
  try {
    return globalThis.top !== globalThis.self;
  } catch {
    return true;
  }
}

export function FramedNotice() {
  return (
    <main id="main" class="narrow">
      <h1>Domain Watchlist</h1>
      <p>This page cannot be used inside another site.</p>
      <p>
        <a href={location.href} target="_blank" rel="noopener">Open it in its own window</a>
      </p>
    </main>
  );
}
