import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { savePaper, undoSave, unsavePaper } from '../background/saves.js';
import { makeContext } from './helpers/context.js';

describe('saves', () => {
  it('saves to the default list and remembers it for the page', async () => {
    const { ctx, server } = await makeContext();
    const result = await savePaper(ctx, { arxivId: 'arXiv:2501.00001v2' });
    assert.equal(result.status, 'saved');
    assert.equal(server.state.items.get(7).has('2501.00001'), true);
    const { saved, recent } = await ctx.local.get('saved', 'recent');
    assert.deepEqual(saved, { '2501.00001': ['7'] });
    assert.deepEqual([recent[0].arxivId, recent[0].state, recent[0].listId], ['2501.00001', 'saved', 7]);
  });

  it('queues a save while the server is down and says why', async () => {
    const { ctx, server } = await makeContext();
    server.state.down = true;
    const result = await savePaper(ctx, { arxivId: '2501.00001' });
    assert.deepEqual([result.status, result.reason, result.queued], ['queued', 'offline', 1]);
  });

  it('queues a save made before connecting', async () => {
    const { ctx } = await makeContext({ connected: false });
    const result = await savePaper(ctx, { arxivId: 'hep-th/9901001' });
    assert.deepEqual([result.status, result.reason], ['queued', 'not-connected']);
  });

  it('refuses what is not an arXiv id', async () => {
    const { ctx } = await makeContext();
    await assert.rejects(savePaper(ctx, { arxivId: '<script>' }), /Not an arXiv id/);
  });

  it('saving twice sends one POST per click and keeps one item', async () => {
    const { ctx, server } = await makeContext();
    await savePaper(ctx, { arxivId: '2501.00001' });
    await savePaper(ctx, { arxivId: '2501.00001' });
    assert.equal(server.state.items.get(7).size, 1);
  });

  it('undo of a delivered save removes it on the server', async () => {
    const { ctx, server } = await makeContext();
    const { saveId } = await savePaper(ctx, { arxivId: '2501.00001' });
    assert.deepEqual(await undoSave(ctx, { saveId }), { status: 'undone', queued: 0 });
    assert.equal(server.state.items.get(7).size, 0);
    const { recent, saved } = await ctx.local.get('recent', 'saved');
    assert.equal(recent[0].state, 'undone');
    assert.deepEqual(saved, {});
  });

  it('undo of a queued save just forgets it', async () => {
    const { ctx, server } = await makeContext();
    server.state.down = true;
    const { saveId } = await savePaper(ctx, { arxivId: '2501.00001' });
    assert.deepEqual(await undoSave(ctx, { saveId }), { status: 'undone' });
    server.state.down = false;
    server.state.requests = [];
    assert.deepEqual((await ctx.local.get('queue')).queue, []);
    assert.equal(server.state.requests.filter((r) => r.method === 'POST').length, 0);
  });

  it('unsave removes the paper from the lists it was saved to', async () => {
    const { ctx, server } = await makeContext();
    await savePaper(ctx, { arxivId: '2501.00001' });
    assert.equal((await unsavePaper(ctx, { arxivId: '2501.00001' })).status, 'removed');
    assert.equal(server.state.items.get(7).size, 0);
  });
});
