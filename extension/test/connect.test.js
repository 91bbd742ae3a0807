// Security finding 3 (issue 17): the connect script is injected on /extension/connect of every
// local port, and used to mark any such page with data-paperscope-extension (telling every local
// page that the extension is installed) and to relay tokens from it. Only the configured
// server's connect page may see either.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import vm from 'node:vm';

function runConnect(href, server) {
  const dataset = {};
  const listeners = [];
  const url = new URL(href);
  const context = vm.createContext({
    URL,
    location: { href, origin: url.origin, pathname: url.pathname },
    document: { documentElement: { dataset } },
    window: { addEventListener: (type, fn) => listeners.push(type), postMessage: () => {} },
    chrome: {
      storage: { local: { get: async () => (server === undefined ? {} : { server }) } },
      runtime: { sendMessage: async () => ({ ok: true, result: { status: 'connected' } }) },
    },
  });
  vm.runInContext(readFileSync(new URL('../content/connect.js', import.meta.url), 'utf8'), context);
  return { dataset, listeners };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('connect script', () => {
  it('stays silent on another local port', async () => {
    const page = runConnect('http://127.0.0.1:9999/extension/connect?ext=x', 'http://127.0.0.1:8000');
    await settle();
    assert.deepEqual({ ...page.dataset }, {});
    assert.deepEqual(page.listeners, []);
  });

  it('stays silent on localhost when the server is 127.0.0.1, and off the connect path', async () => {
    for (const href of ['http://localhost:8000/extension/connect', 'http://127.0.0.1:8000/other/extension/connect']) {
      const page = runConnect(href, 'http://127.0.0.1:8000');
      await settle();
      assert.deepEqual({ ...page.dataset }, {}, href);
    }
  });

  it('answers on the configured server, the default one included', async () => {
    const custom = runConnect('https://papers.example.org/ps/extension/connect?ext=x', 'https://papers.example.org/ps');
    const fresh = runConnect('http://127.0.0.1:8000/extension/connect?ext=x', undefined);
    await settle();
    for (const page of [custom, fresh]) {
      assert.equal(page.dataset.paperscopeExtension, 'installed');
      assert.deepEqual(page.listeners, ['message']);
    }
  });
});
