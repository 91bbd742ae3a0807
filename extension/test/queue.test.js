import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { addToQueue, backoffMinutes, enqueue, flushQueue, RETRY_ALARM } from '../background/queue.js';
import { makeContext } from './helpers/context.js';

const op = (id, kind, arxivId, listId = 7) => ({ id, kind, arxivId, listId, createdAt: 0 });

describe('offline queue', () => {
  it('never holds the same change twice, and a removal cancels a queued save', () => {
    let { queue } = addToQueue([], op('a', 'add', '2501.00001'));
    ({ queue } = addToQueue(queue, op('b', 'add', '2501.00001')));
    assert.deepEqual(queue.map((o) => o.id), ['a']);
    const result = addToQueue(queue, op('c', 'remove', '2501.00001'));
    assert.deepEqual(result.queue, []);
    assert.equal(result.cancelled.id, 'a');
  });

  it('backs off from 30 s to 30 min', () => {
    assert.deepEqual([1, 2, 3, 10].map(backoffMinutes), [0.5, 1, 2, 30]);
  });

  it('delivers in order and clears the badge', async () => {
    const { ctx, fake, server } = await makeContext();
    await enqueue(ctx, op('a', 'add', '2501.00001'));
    await enqueue(ctx, op('b', 'add', '2501.00002'));
    assert.equal(fake.badge.text, '2');
    assert.equal(await flushQueue(ctx), 0);
    assert.deepEqual([...server.state.items.get(7).keys()], ['2501.00001', '2501.00002']);
    assert.equal(fake.badge.text, '');
    assert.equal(fake.alarms.has(RETRY_ALARM), false);
  });

  it('keeps everything while the server is down and retries by alarm', async () => {
    const { ctx, fake, server } = await makeContext();
    server.state.down = true;
    await enqueue(ctx, op('a', 'add', '2501.00001'));
    assert.equal(await flushQueue(ctx), 1);
    assert.equal(fake.badge.text, '1');
    assert.equal(fake.alarms.get(RETRY_ALARM).delayInMinutes, 0.5);
    assert.equal(await flushQueue(ctx), 1);
    assert.equal(fake.alarms.get(RETRY_ALARM).delayInMinutes, 1);
    server.state.down = false;
    assert.equal(await flushQueue(ctx), 0);
    assert.equal(server.state.items.get(7).size, 1);
    const { retryCount, queue } = await ctx.local.get('retryCount', 'queue');
    assert.deepEqual([retryCount, queue], [0, []]);
  });

  it('keeps saves made with an expired token and marks the connection expired', async () => {
    const { ctx, server } = await makeContext();
    server.state.token = 'rotated';
    await enqueue(ctx, op('a', 'add', '2501.00001'));
    assert.equal(await flushQueue(ctx), 1);
    assert.equal((await ctx.local.get('authState')).authState, 'expired');
  });

  it('drops a change the server refuses for good, and says so', async () => {
    const { ctx, server } = await makeContext();
    await enqueue(ctx, op('a', 'add', '2501.00001', 99));
    await enqueue(ctx, op('b', 'add', '2501.00002'));
    assert.equal(await flushQueue(ctx), 0);
    assert.deepEqual([...server.state.items.get(7).keys()], ['2501.00002']);
    const { recent } = await ctx.local.get('recent');
    assert.equal(recent[0].state, 'failed');
    assert.match(recent[0].error, /No such list/);
  });

  it('delivers each change once when two flushes run together', async () => {
    const { ctx, server } = await makeContext();
    await enqueue(ctx, op('a', 'add', '2501.00001'));
    await Promise.all([flushQueue(ctx), flushQueue(ctx), flushQueue(ctx)]);
    assert.equal(server.state.requests.filter((r) => r.method === 'POST').length, 1);
  });

  it('loses no save when many arrive at once', async () => {
    const { ctx } = await makeContext();
    await Promise.all(Array.from({ length: 20 }, (_, i) => enqueue(ctx, op(`o${i}`, 'add', `2501.000${String(i).padStart(2, '0')}`))));
    assert.equal((await ctx.local.get('queue')).queue.length, 20);
  });

  it('learns the default list when a save was queued before connecting', async () => {
    const { ctx, server } = await makeContext({ connected: false });
    await enqueue(ctx, op('a', 'add', '2501.00001', null));
    assert.equal(await flushQueue(ctx), 1);
    await ctx.tokens.set('good-token', { persist: true });
    assert.equal(await flushQueue(ctx), 0);
    assert.equal(server.state.items.get(7).has('2501.00001'), true);
  });
});
