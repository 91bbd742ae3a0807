import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createStore, DEFAULTS, migrate, SCHEMA_VERSION } from '../shared/storage.js';
import { isBuiltinServer, normalizeServer, originPattern, paperUrl, topicUrl } from '../shared/server-url.js';
import { createFakeChrome } from './helpers/fake-chrome.js';

describe('storage', () => {
  it('fills in defaults without sharing them between reads', async () => {
    const { chrome } = createFakeChrome();
    const store = createStore(chrome.storage.local);
    const first = await store.get('queue', 'server');
    first.queue.push('x');
    assert.deepEqual(await store.get('queue', 'server'), { queue: [], server: 'http://127.0.0.1:8000' });
    assert.deepEqual(Object.keys(await store.getAll()), Object.keys(DEFAULTS));
  });

  it('migrates once to the current schema', async () => {
    const { chrome } = createFakeChrome();
    assert.equal(await migrate(chrome.storage.local), 0);
    assert.equal(await migrate(chrome.storage.local), SCHEMA_VERSION);
  });
});

describe('server urls', () => {
  it('normalises what the user types', () => {
    assert.equal(normalizeServer(' https://papers.example.org/ '), 'https://papers.example.org');
    assert.equal(normalizeServer('http://127.0.0.1:8000'), 'http://127.0.0.1:8000');
    assert.equal(normalizeServer('https://example.org/paperscope/'), 'https://example.org/paperscope');
    for (const bad of ['javascript:alert(1)', 'ftp://x', 'not a url', 'https://u:p@x', 'https://x/?q=1', '']) assert.equal(normalizeServer(bad), null, bad);
  });

  it('builds links and permission patterns', () => {
    assert.equal(topicUrl('http://s', 'a b'), 'http://s/topics/a%20b/');
    assert.equal(paperUrl('http://s', 'hep-th/9901001'), 'http://s/papers/hep-th/9901001/');
    assert.equal(originPattern('https://papers.example.org:8443'), 'https://papers.example.org/*');
    assert.equal(isBuiltinServer('http://localhost:9000'), true);
    assert.equal(isBuiltinServer('https://papers.example.org'), false);
  });
});
