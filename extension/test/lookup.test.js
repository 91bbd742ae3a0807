import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CACHE_TTL_MS, forPage, lookupPapers, sweepCache } from '../background/lookup.js';
import { savePaper } from '../background/saves.js';
import { makeContext } from './helpers/context.js';

// The cache is written just after the answer goes out: the service worker runs the deferred work
// once it has sent the answer.
const wait = () => new Promise((resolve) => setTimeout(resolve, 5));
let current = null;
const settle = async () => {
  current.runDeferred();
  await wait();
};
const lookups = (server) => server.state.requests.filter((r) => r.path === '/api/v1/papers/lookup').length;

describe('lookup', () => {
  it('answers from the cache within its lifetime', async () => {
    let clock = 1_000_000;
    const { ctx, server } = await makeContext({ now: () => clock });
    current = ctx;
    server.addPaper('2501.00001');
    const first = await lookupPapers(ctx, { ids: ['2501.00001', '2501.00002'] });
    assert.deepEqual(Object.keys(first.papers), ['2501.00001']);
    assert.deepEqual(first.pending, ['2501.00002']);
    await settle();
    const second = await lookupPapers(ctx, { ids: ['2501.00001'] });
    const [topic] = second.papers['2501.00001'];
    assert.deepEqual(second.topics[topic], ['graph-neural-networks', 'Graph neural networks', 'ml']);
    assert.equal(lookups(server), 1);
    clock += CACHE_TTL_MS + 1;
    await lookupPapers(ctx, { ids: ['2501.00001'] });
    assert.equal(lookups(server), 2);
  });

  it('stores the answer only after it has been sent', async () => {
    const { ctx, server } = await makeContext();
    server.addPaper('2501.00001');
    await lookupPapers(ctx, { ids: ['2501.00001'] });
    await wait();
    const cached = async () => Object.keys(await ctx.cache.get(null)).filter((key) => key.startsWith('lk:'));
    assert.deepEqual(await cached(), []);
    ctx.runDeferred();
    await wait();
    assert.deepEqual(await cached(), ['lk:2501.00001']);
  });

  it('never caches pending papers', async () => {
    const { ctx, server } = await makeContext();
    current = ctx;
    await lookupPapers(ctx, { ids: ['2501.00002'] });
    await settle();
    server.addPaper('2501.00002');
    const again = await lookupPapers(ctx, { ids: ['2501.00002'] });
    assert.deepEqual(Object.keys(again.papers), ['2501.00002']);
    assert.deepEqual(again.pending, []);
  });

  it('refreshes stale followed topics while it looks up', async () => {
    const { ctx } = await makeContext();
    const answer = await lookupPapers(ctx, { ids: ['2501.00001'] });
    assert.deepEqual(answer.followed, ['graph-neural-networks']);
  });

  it('reports a dead server as an error instead of throwing', async () => {
    const { ctx, server } = await makeContext();
    server.state.down = true;
    const answer = await lookupPapers(ctx, { ids: ['2501.00001'] });
    assert.equal(answer.error.kind, 'offline');
    assert.deepEqual(answer.papers, {});
  });

  it('adds followed topics and this browser\'s saves', async () => {
    const { ctx, server } = await makeContext();
    server.addPaper('2501.00001');
    await ctx.local.set({ follows: { items: [{ slug: 'graph-neural-networks', name: 'GNN', area: 'ml' }], fetchedAt: 1 } });
    await savePaper(ctx, { arxivId: '2501.00001' });
    const answer = await lookupPapers(ctx, { ids: ['2501.00001', 'junk'] });
    assert.deepEqual(answer.followed, ['graph-neural-networks']);
    assert.deepEqual(answer.saved, ['2501.00001']);
    assert.equal(answer.server, 'http://127.0.0.1:8000');
  });

  it('delivers queued saves once the server answers a lookup again', async () => {
    const { ctx, server } = await makeContext();
    server.state.down = true;
    await savePaper(ctx, { arxivId: '2501.00001' });
    server.state.down = false;
    await lookupPapers(ctx, { ids: ['2501.00009'] });
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(server.state.items.get(7).has('2501.00001'), true);
  });

  it('sends the page each paper\'s tags as triples into one list of topics', () => {
    const tag = (slug, area, confidence, shown) => ({ slug, name: slug.toUpperCase(), area, score: 0.31, confidence, rank: 1, shown, implied: !shown });
    const papers = {
      a: { arxivId: 'a', tags: [tag('gnn', 'ml', 0.9, true), tag('ml', null, 0.2, false)] },
      b: { arxivId: 'b', tags: [tag('gnn', 'ml', 0.5, true)] },
      c: { arxivId: 'c', tags: [tag('old', 'ml', null, null)] },
      d: { arxivId: 'd', tags: [] },
    };
    assert.deepEqual(forPage(papers), {
      topics: [['gnn', 'GNN', 'ml'], ['ml', 'ML', null], ['old', 'OLD', 'ml']],
      papers: { a: [0, 0.9, 1, 1, 0.2, 0], b: [0, 0.5, 1], c: [2, null, null], d: [] },
    });
  });

  it('sweeps expired entries', async () => {
    let clock = 0;
    const { ctx, server } = await makeContext({ now: () => clock });
    current = ctx;
    server.addPaper('2501.00001');
    await lookupPapers(ctx, { ids: ['2501.00001'] });
    await settle();
    assert.equal(await sweepCache(ctx), 0);
    clock = CACHE_TTL_MS * 2;
    assert.equal(await sweepCache(ctx), 1);
  });
});
