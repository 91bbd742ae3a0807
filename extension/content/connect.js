// Runs on <server>/extension/connect: the page, once the user approves, posts the new token with
// window.postMessage({type: 'paperscope:token', token, server}, location.origin). This relays it
// to the service worker, which checks that this page is on the configured server.
(() => {
  if (globalThis.PaperscopeConnect) return;
  globalThis.PaperscopeConnect = true;

  function answer(result) {
    document.documentElement.dataset.paperscopeExtension = result.status;
    window.postMessage({ type: 'paperscope:connected', status: result.status, username: result.username ?? null, detail: result.detail ?? '' }, location.origin);
  }

  window.addEventListener('message', (event) => {
    if (event.source !== window || event.origin !== location.origin) return;
    const data = event.data;
    if (!data || data.type !== 'paperscope:token' || typeof data.token !== 'string') return;
    const payload = { token: data.token, server: typeof data.server === 'string' ? data.server : location.origin };
    chrome.runtime.sendMessage({ type: 'auth/token', payload }).then(
      (reply) => answer(reply?.ok ? reply.result : { status: 'failed', detail: reply?.error?.detail }),
      (error) => answer({ status: 'failed', detail: String(error) }),
    );
  });

  // Lets the page say "the extension is installed" before the user approves.
  document.documentElement.dataset.paperscopeExtension = 'installed';
})();
