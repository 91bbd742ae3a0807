// Runs on <server>/extension/connect: the page, once the user approves, posts the new token with
// window.postMessage({type: 'paperscope:token', token, server}, location.origin). This relays it
// to the service worker, which checks again that this page is on the configured server.
//
// The manifest's match patterns cannot name a port, so this script is injected into
// /extension/connect on every port of 127.0.0.1 and localhost (and a custom server's host):
// anything local could be a "connect page". It does nothing, and marks nothing, unless the page
// is the configured server's own connect page (security finding 3, docs/security.md).
(() => {
  if (globalThis.PaperscopeConnect) return;
  globalThis.PaperscopeConnect = true;

  function onConfiguredServer(server) {
    try {
      const base = new URL(server);
      const path = `${base.pathname.replace(/\/+$/, '')}/extension/connect`;
      return location.origin === base.origin && location.pathname === path;
    } catch {
      return false;
    }
  }

  function answer(result) {
    document.documentElement.dataset.paperscopeExtension = result.status;
    window.postMessage({ type: 'paperscope:connected', status: result.status, username: result.username ?? null, detail: result.detail ?? '' }, location.origin);
  }

  // The default server when none was chosen yet: shared/server-url.js DEFAULT_SERVER.
  const onServer = chrome.storage.local.get('server').then(
    ({ server }) => onConfiguredServer(server ?? 'http://127.0.0.1:8000'),
    () => false,
  );

  // Lets the page say "the extension is installed" before the user approves.
  onServer.then((ok) => {
    if (ok) document.documentElement.dataset.paperscopeExtension = 'installed';
  });

  // Listening starts at once (a page may post before the settings are read); relaying waits
  // for the answer whether this is the configured server's page.
  window.addEventListener('message', (event) => {
    if (event.source !== window || event.origin !== location.origin) return;
    const data = event.data;
    if (!data || data.type !== 'paperscope:token' || typeof data.token !== 'string') return;
    const payload = { token: data.token, server: typeof data.server === 'string' ? data.server : location.origin };
    onServer.then((ok) => {
      if (!ok) return;
      chrome.runtime.sendMessage({ type: 'auth/token', payload }).then(
        (reply) => answer(reply?.ok ? reply.result : { status: 'failed', detail: reply?.error?.detail }),
        (error) => answer({ status: 'failed', detail: String(error) }),
      );
    });
  });
})();
