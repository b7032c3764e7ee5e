// `npm run docs:config`: writes what is generated from the config schema (config-files.ts says
// what). Descriptions, defaults and allowed values are edited in src/config/, never in the output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configDocs, REPO_ROOT } from './config-files.js';

for (const { path, text } of configDocs()) {
  mkdirSync(dirname(join(REPO_ROOT, path)), { recursive: true });
  writeFileSync(join(REPO_ROOT, path), text);
  console.log(`wrote ${path}`);
}
