import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
/** Where `vite dev` forwards API calls: a server started with `npm start` (default port 4317). */
const apiTarget = process.env.CONTROL_CENTER_URL ?? 'http://127.0.0.1:4317';

/** The web app (§13): its own build, served by the server from `web/dist` (src/server/web-app.ts). */
export default defineConfig({
  root: webRoot,
  base: '/',
  plugins: [react()],
  resolve: {
    // The server's schema types (type-only) and its pure-data core lists (modes, picker, event types);
    // lint keeps the web from importing anything else from src/ (eslint.config.js).
    alias: { '@server': fileURLToPath(new URL('../src', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Plan Studio's chunk holds elkjs (about 1.7 MB with @xyflow); it loads only when Plan Studio opens.
    chunkSizeWarningLimit: 1_800,
  },
  server: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: false },
      '/openapi.json': { target: apiTarget },
    },
  },
});
