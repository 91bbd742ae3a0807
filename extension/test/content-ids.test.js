import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { loadContentScripts } from './helpers/load-classic.js';

const { ids } = loadContentScripts(['ids.js']);

describe('content ids', () => {
  it('parses every id form arXiv prints', () => {
    const cases = {
      '2303.00765': ['2303.00765', null],
      'arXiv:2101.10016v3': ['2101.10016', 3],
      '0906.5132': ['0906.5132', null],
      'hep-th/9901001': ['hep-th/9901001', null],
      'hep-th/9901001v2': ['hep-th/9901001', 2],
      'math.AG/0202001': ['math/0202001', null],
      'astro-ph%2F0602001': ['astro-ph/0602001', null],
      '  arXiv:1411.4413 \n': ['1411.4413', null],
    };
    for (const [raw, [id, version]] of Object.entries(cases)) assert.deepEqual({ ...ids.parse(raw) }, { id, version }, raw);
  });

  it('rejects what is not an id', () => {
    for (const raw of ['', '2303.007', '12345.6789', 'hep-th/990100', '<img src=x>', 'list/astro-ph', null]) assert.equal(ids.parse(raw), null, String(raw));
  });

  it('reads ids from page paths, with or without version', () => {
    assert.deepEqual({ ...ids.fromPath('/abs/2101.10016v3') }, { id: '2101.10016', version: 3 });
    assert.deepEqual({ ...ids.fromPath('/abs/hep-th/9901001') }, { id: 'hep-th/9901001', version: null });
    assert.deepEqual({ ...ids.fromPath('/abs/hep-th/9901001v2') }, { id: 'hep-th/9901001', version: 2 });
    assert.deepEqual({ ...ids.fromPath('/html/2403.10561v1/') }, { id: '2403.10561', version: 1 });
    assert.deepEqual({ ...ids.fromPath('/html/cs/9901011v1/index.html') }, { id: 'cs/9901011', version: 1 });
    assert.equal(ids.fromPath('/abs/'), null);
  });

  it('reads ids from abstract links only', () => {
    assert.equal(ids.fromHref('/abs/2303.00765').id, '2303.00765');
    assert.equal(ids.fromHref('https://arxiv.org/abs/astro-ph/0602001').id, 'astro-ph/0602001');
    assert.equal(ids.fromHref('/pdf/2303.00765'), null);
    assert.equal(ids.fromHref('https://example.org/abs/2303.00765'), null);
    assert.equal(ids.fromHref('/abs/2303.00765', 'https://example.org/list/x'), null);
    assert.equal(ids.fromHref('//example.org/abs/2303.00765'), null);
    assert.deepEqual({ ...ids.fromHref('/abs/2101.10016v3', 'https://arxiv.org/list/cs.LG/new') }, { id: '2101.10016', version: 3 });
    assert.deepEqual({ ...ids.fromHref('https://arxiv.org/abs/hep-th/9901001v2') }, { id: 'hep-th/9901001', version: 2 });
    // Dot segments, queries and escapes are URL's business, as before.
    assert.equal(ids.fromHref('/abs/x/../2303.00765').id, '2303.00765');
    assert.equal(ids.fromHref('/abs/../list/2303.00765'), null);
    assert.equal(ids.fromHref('/abs/astro-ph%2F0602001?context=x').id, 'astro-ph/0602001');
  });
});
