import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { handleMessage } from '../background/router.js';
import { MSG } from '../shared/messages.js';
import { makeContext } from './helpers/context.js';

const arxivTab = { url: 'https://arxiv.org/abs/2501.00001', tab: { id: 1 } };
const popup = { url: 'chrome-extension://testextensionid/popup/popup.html' };

describe('router', () => {
  it('answers content scripts for page routes', async () => {
    const { ctx } = await makeContext();
    const answer = await handleMessage(ctx, { type: MSG.LOOKUP, payload: { ids: ['2501.00001'] } }, arxivTab);
    assert.equal(answer.ok, true);
    assert.deepEqual(answer.result.pending, ['2501.00001']);
  });

  it('keeps settings routes for the extension\'s own pages', async () => {
    const { ctx } = await makeContext();
    const denied = await handleMessage(ctx, { type: MSG.SET_SERVER, payload: { server: 'https://evil.example' } }, arxivTab);
    assert.deepEqual(denied, { ok: false, error: { kind: 'forbidden', detail: MSG.SET_SERVER } });
    const state = await handleMessage(ctx, { type: MSG.STATE }, popup);
    assert.equal(state.result.connection, 'connected');
  });

  it('turns thrown errors and unknown types into answers', async () => {
    const { ctx } = await makeContext();
    assert.equal((await handleMessage(ctx, { type: 'nope' }, popup)).error.kind, 'unknown-message');
    const bad = await handleMessage(ctx, { type: MSG.SAVE, payload: { arxivId: 'x' } }, arxivTab);
    assert.equal(bad.ok, false);
    assert.equal(bad.error.kind, 'client');
  });
});
