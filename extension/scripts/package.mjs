// `npm run package`: the Chrome zip and the Firefox package, from the same source files.
// Each gets its own manifest: no "key" (stores assign ids), and only its browser's background.

import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import webExt from 'web-ext';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const SOURCES = ['background', 'content', 'icons', 'options', 'popup', 'shared'];

const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
delete manifest.key;

const TARGETS = {
  chrome: (m) => {
    delete m.background.scripts;
    delete m.browser_specific_settings;
    return m;
  },
  firefox: (m) => {
    delete m.background.service_worker;
    return m;
  },
};

rmSync(dist, { recursive: true, force: true });
for (const [browser, adapt] of Object.entries(TARGETS)) {
  const stage = join(dist, `stage-${browser}`);
  mkdirSync(stage, { recursive: true });
  for (const folder of SOURCES) cpSync(join(root, folder), join(stage, folder), { recursive: true });
  writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(adapt(structuredClone(manifest)), null, 2)}\n`);
  const { extensionPath } = await webExt.cmd.build(
    { sourceDir: stage, artifactsDir: dist, filename: `paperscope-${browser}-${manifest.version}.zip`, overwriteDest: true },
    { shouldExitProgram: false },
  );
  rmSync(stage, { recursive: true, force: true });
  console.log(extensionPath);
}
