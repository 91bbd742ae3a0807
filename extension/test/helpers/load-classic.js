// Runs the content scripts (classic scripts that fill globalThis.Paperscope) in a fresh VM context.

import { readFileSync } from 'node:fs';
import vm from 'node:vm';

export function loadContentScripts(names, globals = {}) {
  const context = vm.createContext({ URL, console, ...globals });
  for (const name of names) {
    const path = new URL(`../../content/${name}`, import.meta.url);
    vm.runInContext(readFileSync(path, 'utf8'), context, { filename: path.pathname });
  }
  return context.Paperscope;
}
