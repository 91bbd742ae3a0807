import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { ALL_TYPES } from '../shared/messages.js';

const here = (path) => new URL(`../${path}`, import.meta.url);
const manifest = JSON.parse(readFileSync(here('manifest.json'), 'utf8'));

describe('manifest', () => {
  it('is MV3 for Chromium and Firefox from one file', () => {
    assert.equal(manifest.manifest_version, 3);
    assert.equal(manifest.background.service_worker, 'background/service-worker.js');
    assert.deepEqual(manifest.background.scripts, ['background/service-worker.js']);
    assert.equal(manifest.background.type, 'module');
    assert.match(manifest.browser_specific_settings.gecko.id, /@/);
    assert.equal(typeof manifest.key, 'string');
  });

  it('asks for the least it needs', () => {
    assert.deepEqual(manifest.permissions, ['storage', 'alarms']);
    assert.deepEqual(manifest.host_permissions, ['https://arxiv.org/*', 'http://127.0.0.1/*', 'http://localhost/*']);
  });

  it('never runs on PDFs', () => {
    const matches = manifest.content_scripts.flatMap((script) => script.matches);
    assert.equal(matches.some((m) => m.includes('/pdf')), false);
    assert.equal(matches.some((m) => m === 'https://arxiv.org/*'), false);
  });

  it('names only files that exist', () => {
    const files = [
      manifest.background.service_worker,
      manifest.action.default_popup,
      manifest.options_ui.page,
      ...Object.values(manifest.icons),
      ...manifest.content_scripts.flatMap((script) => [...script.js, ...(script.css ?? [])]),
    ];
    for (const file of files) assert.ok(existsSync(here(file)), file);
  });
});

describe('message types', () => {
  it('content scripts send only types the worker knows', () => {
    for (const name of readdirSync(here('content')).filter((f) => f.endsWith('.js'))) {
      const source = readFileSync(here(`content/${name}`), 'utf8');
      const sent = [...source.matchAll(/(?:ask\(|type: )'([a-z-]+\/[a-z-]+)'/g)].map((m) => m[1]);
      for (const type of sent) assert.ok(ALL_TYPES.includes(type), `${name}: ${type}`);
    }
  });

  it('content scripts never write HTML', () => {
    for (const name of readdirSync(here('content')).filter((f) => f.endsWith('.js'))) {
      const source = readFileSync(here(`content/${name}`), 'utf8');
      assert.doesNotMatch(source, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, name);
    }
  });
});
