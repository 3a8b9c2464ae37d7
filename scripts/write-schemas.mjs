// Writes docs/schemas/*.schema.json from the schema objects in the built
// package, so the documented schema is exactly the one the SDK validates with.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMAS } from '../dist/index.mjs';

const dir = fileURLToPath(new URL('../docs/schemas/', import.meta.url));
mkdirSync(dir, { recursive: true });
for (const [file, schema] of Object.entries(SCHEMAS)) {
  writeFileSync(`${dir}${file}`, JSON.stringify(schema, null, 2) + '\n');
  console.log(`write-schemas: docs/schemas/${file}`);
}
