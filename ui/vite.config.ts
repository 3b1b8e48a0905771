// Vite builds the window's UI into dist/, which the Tauri shell embeds; vitest runs the unit
// tests in a DOM (jsdom).
import { defineConfig } from "vitest/config";

export default defineConfig({
  clearScreen: false,
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  test: { environment: "jsdom", globals: true },
});
