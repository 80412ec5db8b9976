import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
/** Where `vite dev` forwards API calls: a server started with `npm start` (default port 4317). */
const apiTarget = process.env.CONTROL_CENTER_URL ?? 'http://127.0.0.1:4317';

/** Text files worth compressing (images other than SVG are compressed already). */
const COMPRESSIBLE = /\.(?:js|css|html|svg|json|txt)$/;

/**
 * Writes `<file>.br` and `<file>.gz` beside every text file of the build (UI: compressed assets);
 * the server sends them to browsers that accept them (src/server/web-app.ts, preCompressed).
 * node:zlib only, so the build needs no extra dependency.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'control-center-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const content = readFileSync(file);
        if (content.length < 1024) continue;
        writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
      }
    },
  };
}

/** The web app (§13): its own build, served by the server from `web/dist` (src/server/web-app.ts). */
export default defineConfig({
  root: webRoot,
  base: '/',
  plugins: [react(), precompress()],
  resolve: {
    // The server's schema types (type-only) and its pure-data core lists (modes, picker, event types);
    // lint keeps the web from importing anything else from src/ (eslint.config.js).
    alias: { '@server': fileURLToPath(new URL('../src', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Plan Studio (with @xyflow) is its own chunk, loaded only when Plan Studio opens.
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: false },
      '/openapi.json': { target: apiTarget },
    },
  },
});
