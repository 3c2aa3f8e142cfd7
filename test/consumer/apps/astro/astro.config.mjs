// The Astro recipe of docs/frameworks.md: a static site; the checkout's script is bundled by Astro (Vite).
import { defineConfig } from 'astro/config';

export default defineConfig({ output: 'static' });
