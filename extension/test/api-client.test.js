import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiError, cleanPaper, createApiClient } from '../shared/api-client.js';
import { createFakeServer } from './helpers/fake-server.js';

function client(server, { token = 'good-token', timeoutMs } = {}) {
  return createApiClient({ fetch: server.fetch, getServer: async () => server.origin, getToken: async () => token, timeoutMs });
}

describe('api client', () => {
  it('looks up papers and keeps only the fields the page needs', async () => {
    const server = createFakeServer();
    server.addPaper('2501.00001');
    const answer = await client(server).lookup(['2501.00001', '2501.00002']);
    assert.deepEqual(answer.papers, [{ arxivId: '2501.00001', version: 1, tags: [{ slug: 'graph-neural-networks', name: 'Graph neural networks', area: 'ml', confidence: 0.75, rank: 1, shown: true, implied: false }] }]);
    assert.deepEqual(answer.pending, ['2501.00002']);
  });

  it('sends one request per 2,000 ids', async () => {
    const server = createFakeServer();
    const ids = Array.from({ length: 2500 }, (_, i) => `2501.${String(i).padStart(5, '0')}`);
    await client(server).lookup(ids);
    assert.deepEqual(server.state.requests.map((r) => r.body.ids.length), [2000, 500]);
  });

  it('retries a lookup without the ids the server calls invalid', async () => {
    let calls = 0;
    const fetch = async (url, init) => {
      calls += 1;
      const ids = JSON.parse(init.body).ids;
      if (ids.includes('bad')) return new Response(JSON.stringify({ code: 'invalid_arxiv_id', detail: 'Not arXiv ids: bad', invalid_ids: ['bad'] }), { status: 400 });
      return new Response(JSON.stringify({ papers: [], pending: ids, not_found: [] }), { status: 200 });
    };
    const api = createApiClient({ fetch, getServer: async () => 'http://x', getToken: async () => null });
    const answer = await api.lookup(['2501.00001', 'bad']);
    assert.equal(calls, 2);
    assert.deepEqual(answer.pending, ['2501.00001']);
    assert.deepEqual(answer.notFound, ['bad']);
  });

  it('maps failures to kinds', async () => {
    const server = createFakeServer();
    server.state.down = true;
    await assert.rejects(client(server).lookup(['2501.00001']), (e) => e instanceof ApiError && e.kind === 'offline' && e.retryable);
    server.state.down = false;
    server.state.garbage = true;
    await assert.rejects(client(server).lookup(['2501.00001']), (e) => e.kind === 'garbage');
    server.state.garbage = false;
    await assert.rejects(client(server, { token: 'revoked' }).me(), (e) => e.kind === 'auth' && e.status === 401 && e.code === 'not_authenticated');
    await assert.rejects(client(server, { token: null }).lists(), (e) => e.kind === 'no-token' && e.retryable);
    await assert.rejects(client(server).addItem(99, '2501.00001'), (e) => e.kind === 'client' && !e.retryable);
  });

  it('times out a server that does not answer', async () => {
    const fetch = (url, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))));
    const api = createApiClient({ fetch, getServer: async () => 'http://x', getToken: async () => null, timeoutMs: 20 });
    await assert.rejects(api.lookup(['2501.00001']), (e) => e.kind === 'timeout' && e.retryable);
  });

  it('rejects a lookup answer of the wrong shape', async () => {
    const fetch = async () => new Response(JSON.stringify({ papers: 'nope' }), { status: 200 });
    const api = createApiClient({ fetch, getServer: async () => 'http://x', getToken: async () => null });
    await assert.rejects(api.lookup(['2501.00001']), (e) => e.kind === 'garbage');
  });

  it('drops malformed papers and tags, keeps names as given', () => {
    assert.equal(cleanPaper({ title: 'no id' }), null);
    const paper = cleanPaper({ arxiv_id: '2501.00001', tags: [{ slug: 'x', name: '<img src=x onerror=alert(1)>', score: 'high' }, { name: 'no slug' }, null] });
    assert.deepEqual(paper.tags, [{ slug: 'x', name: '<img src=x onerror=alert(1)>', area: null, confidence: null, rank: null, shown: null, implied: null }]);
  });

  it('takes the score as the confidence from a server older than the field', () => {
    const [old, current] = cleanPaper({ arxiv_id: '2501.00001', tags: [{ slug: 'a', name: 'A', score: 0.6 }, { slug: 'b', name: 'B', score: 0.6, confidence: 0.8 }] }).tags;
    assert.equal(old.confidence, 0.6);
    assert.equal(current.confidence, 0.8);
  });

  it('sends the token and reads personal endpoints', async () => {
    const server = createFakeServer();
    const api = client(server);
    assert.deepEqual(await api.me(), { username: 'alice', defaultList: 7 });
    assert.deepEqual(await api.lists(), [{ id: 7, name: 'Reading list', isDefault: true, itemCount: 0 }]);
    assert.deepEqual((await api.follows()).map((t) => t.slug), ['graph-neural-networks']);
    assert.deepEqual(await api.addItem(7, 'hep-th/9901001'), { arxiv_id: 'hep-th/9901001' });
    assert.equal(await api.removeItem(7, 'hep-th/9901001'), null);
    assert.equal(server.state.requests.at(-1).path, '/api/v1/me/lists/7/items/hep-th/9901001');
  });

  it('follows next links on the same server only', async () => {
    const pages = {
      '/api/v1/me/follows': { results: [{ slug: 'a', name: 'A' }], next: 'http://x/api/v1/me/follows?cursor=2' },
      '/api/v1/me/follows?cursor=2': { results: [{ slug: 'b', name: 'B' }], next: 'http://evil.example/steal' },
    };
    const fetch = async (url) => new Response(JSON.stringify(pages[url.replace('http://x', '')]), { status: 200 });
    const api = createApiClient({ fetch, getServer: async () => 'http://x', getToken: async () => 't' });
    assert.deepEqual((await api.follows()).map((t) => t.slug), ['a', 'b']);
  });
});
