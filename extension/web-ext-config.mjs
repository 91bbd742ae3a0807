// web-ext reads this file from extension/: what stays out of the lint and the Firefox package.
export default {
  ignoreFiles: ['test', 'scripts', 'node_modules', 'dist', 'package.json', 'package-lock.json', 'README.md', 'web-ext-config.mjs', 'eslint.config.mjs', '.gitignore'],
  build: { overwriteDest: true },
};
