#!/usr/bin/env node
// The `tensorplan` command; the CLI itself is built into dist/cli.mjs.
import { main } from '../dist/cli.mjs';

process.exitCode = await main(process.argv);
