#!/usr/bin/env node
// Entry point for the built CLI (`npm run build` first). Kept in JS so `npm start` needs no loader.
import '../dist/cli/main.js';
