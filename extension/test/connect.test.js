// Security finding 3 (issue 17): the connect script is injected on /extension/connect of every
// local port, and used to mark any such page with data-paperscope-extension (telling every local
// page that the extension is installed) and to relay tokens from it. Only the configured
// server's connect page may see either.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import vm from 'node:vm';

// Runs connect.js on a page at href with the given configured server; then the page posts a
// token the way the connect page does. Returns what the script marked and relayed.
function runConnect(href, server) {
  const dataset = {};
  const listeners = [];
  const relayed = [];
  const url = new URL(href);
  const window = { addEventListener: (type, fn) => listeners.push(fn), postMessage: () => {} };
  const context = vm.createContext({
    URL,
    window,
    location: { href, origin: url.origin, pathname: url.pathname },
    document: { documentElement: { dataset } },
    chrome: {
      storage: { local: { get: async () => (server === undefined ? {} : { server }) } },
      runtime: { sendMessage: async (message) => relayed.push(message) && { ok: true, result: { status: 'connected' } } },
    },
  });
  vm.runInContext(readFileSync(new URL('../content/connect.js', import.meta.url), 'utf8'), context);
  // Posted at once, before the script has read its settings (the page may be that quick).
  for (const fn of listeners) fn({ source: window, origin: url.origin, data: { type: 'paperscope:token', token: 'secret' } });
  return { dataset, relayed };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('connect script', () => {
  it('stays silent on another local port', async () => {
    const page = runConnect('http://127.0.0.1:9999/extension/connect?ext=x', 'http://127.0.0.1:8000');
    await settle();
    assert.deepEqual({ ...page.dataset }, {});
    assert.deepEqual(page.relayed, []);
  });

  it('stays silent on localhost when the server is 127.0.0.1, and off the connect path', async () => {
    for (const href of ['http://localhost:8000/extension/connect', 'http://127.0.0.1:8000/other/extension/connect']) {
      const page = runConnect(href, 'http://127.0.0.1:8000');
      await settle();
      assert.deepEqual({ ...page.dataset }, {}, href);
      assert.deepEqual(page.relayed, [], href);
    }
  });

  it('answers on the configured server, the default one included', async () => {
    const custom = runConnect('https://papers.example.org/ps/extension/connect?ext=x', 'https://papers.example.org/ps');
    const fresh = runConnect('http://127.0.0.1:8000/extension/connect?ext=x', undefined);
    await settle();
    for (const page of [custom, fresh]) {
      assert.equal(page.dataset.paperscopeExtension, 'connected'); // 'installed', then the answer
      assert.deepEqual(page.relayed.map((m) => m.payload.token), ['secret']);
    }
  });
});
