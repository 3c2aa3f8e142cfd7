// The README's Astro recipe: a static site; the checkout's script is bundled by Astro (Vite).
import { defineConfig } from 'astro/config';

export default defineConfig({ output: 'static' });
