import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { forPage } from '../background/lookup.js';
import { loadContentScripts } from './helpers/load-classic.js';

const { model } = loadContentScripts(['model.js']);

// The score differs from the confidence: a chip must show the confidence.
const tag = (slug, name, confidence = 0.5, area = 'ml') => ({ slug, name, area, score: 0.31, confidence, rank: 1 });

describe('content model', () => {
  it('turns tags into chips that link to topic pages', () => {
    const view = model.forPaper({ arxivId: '2501.00001', tags: [tag('graph-neural-networks', 'Graph neural networks', 0.873)] }, { server: 'http://127.0.0.1:8000' });
    assert.equal(view.state, 'tagged');
    assert.deepEqual({ ...view.chips[0] }, {
      text: 'Graph neural networks',
      href: 'http://127.0.0.1:8000/topics/graph-neural-networks/',
      title: 'Graph neural networks · area: ml · confidence 0.87',
      slug: 'graph-neural-networks',
      followed: false,
    });
  });

  it('marks followed topics and their areas', () => {
    const paper = { tags: [tag('a', 'A'), tag('b', 'B', 0.4, 'cv')] };
    const view = model.forPaper(paper, { server: 'http://s', followed: new Set(['cv']) });
    assert.deepEqual([...view.chips.map((c) => c.followed)], [false, true]); // spread: an array of the content scripts' own realm
    assert.equal(view.followed, true);
  });

  it('shows at most seven chips and counts the rest', () => {
    const tags = Array.from({ length: 9 }, (_, i) => tag(`t${i}`, `T${i}`));
    const view = model.forPaper({ tags }, { server: 'http://s' });
    assert.equal(view.chips.length, 7);
    assert.equal(view.more, 2);
  });

  // Issue 13: the server marks the chips; areas and implied parents come after them, unshown.
  it('renders only the shown tags, in the order the server gave', () => {
    const flagged = (slug, shown, implied = false) => ({ ...tag(slug, slug.toUpperCase()), shown, implied });
    const paper = { tags: [flagged('ppo', true), flagged('offline', true), flagged('pg', false, true), flagged('ml', false, true)] };
    const view = model.forPaper(paper, { server: 'http://s', followed: new Set(['pg']) });
    assert.deepEqual([...view.chips.map((c) => c.slug)], ['ppo', 'offline']);
    assert.equal(view.more, 0);
    assert.equal(view.followed, true); // followed through the implied parent
  });

  it('reads the papers as the service worker sends them', () => {
    const paper = { tags: [{ ...tag('ppo', 'PPO', 0.8), shown: true, implied: false }, { ...tag('rl', 'RL', 0.8, null), shown: false, implied: true }] };
    const sent = forPage({ '2501.00001': paper });
    const read = model.paperFrom(sent.papers['2501.00001'], sent.topics);
    assert.deepEqual(JSON.parse(JSON.stringify(read)), {
      tags: [
        { slug: 'ppo', name: 'PPO', area: 'ml', confidence: 0.8, shown: true },
        { slug: 'rl', name: 'RL', area: null, confidence: 0.8, shown: false },
      ],
    });
    const view = model.forPaper(read, { server: 'http://s', followed: new Set(['rl']) });
    assert.deepEqual([...view.chips.map((c) => c.slug)], ['ppo']);
    assert.equal(view.followed, true);
    // A server from before the flags: every tag is a chip, as before.
    const unflagged = forPage({ x: { tags: [tag('a', 'A'), tag('b', 'B')].map((t) => ({ ...t, shown: null })) } });
    assert.equal(model.forPaper(model.paperFrom(unflagged.papers.x, unflagged.topics), { server: 'http://s' }).chips.length, 2);
    // Numbers that point nowhere are skipped, never thrown on.
    assert.deepEqual(JSON.parse(JSON.stringify(model.paperFrom([5, 0.1, 1], sent.topics))), { tags: [] });
  });

  it('names the states without tags', () => {
    assert.equal(model.forPaper(null, { pending: true }).state, 'pending');
    assert.equal(model.STATUS_TEXT.pending, 'tagging…');
    assert.equal(model.forPaper(null, { notFound: true }).state, 'unknown');
    assert.equal(model.forPaper(null, { error: { kind: 'offline' } }).state, 'error');
    assert.equal(model.forPaper({ tags: [] }, {}).state, 'untagged');
  });

  it('never builds a link from a server address that is not http(s)', () => {
    const view = model.forPaper({ tags: [tag('x', 'X')] }, { server: 'javascript:alert(1)//' });
    assert.equal(view.chips[0].href, null);
    assert.equal(model.topicUrl('http://s', '../../admin'), 'http://s/topics/..%2F..%2Fadmin/');
  });

  it('takes `s` only outside fields and without modifiers', () => {
    const key = (extra) => ({ key: 's', target: { tagName: 'BODY' }, isTrusted: true, ...extra });
    assert.equal(model.isSaveKey(key()), true);
    assert.equal(model.isSaveKey(key({ target: { tagName: 'INPUT' } })), false);
    assert.equal(model.isSaveKey(key({ target: { tagName: 'TEXTAREA' } })), false);
    assert.equal(model.isSaveKey(key({ target: { tagName: 'DIV', isContentEditable: true } })), false);
    assert.equal(model.isSaveKey(key({ altKey: true })), false);
    assert.equal(model.isSaveKey(key({ ctrlKey: true })), false);
    assert.equal(model.isSaveKey(key({ isComposing: true })), false);
    assert.equal(model.isSaveKey(key({ key: 'S' })), false);
  });

  // Security finding 1 (issue 17): a script on the arXiv page can dispatch a keydown or call
  // button.click(); such events reach the content script too, with isTrusted false.
  it('ignores keys and clicks that a page script made up', () => {
    assert.equal(model.isSaveKey({ key: 's', target: { tagName: 'BODY' }, isTrusted: false }), false);
    assert.equal(model.isSaveKey({ key: 's', target: { tagName: 'BODY' } }), false);
    assert.equal(model.isUserAction({ isTrusted: false }), false);
    assert.equal(model.isUserAction({}), false);
    assert.equal(model.isUserAction({ isTrusted: true }), true);
  });
});
