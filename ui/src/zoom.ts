// The size of the whole interface (the window's zoom), chosen in the settings and kept in the
// window's storage: 125 % or 150 % makes the window readable as the system's scaling would.

import type { Api } from "./ipc";

/** The sizes offered. */
export const INTERFACE_SIZES = [1, 1.25, 1.5, 1.75];

const KEY = "lectern.interface-size";

/** The size chosen last, or 100 %. */
export function savedSize(): number {
  const size = Number(localStorage.getItem(KEY));
  return INTERFACE_SIZES.includes(size) ? size : 1;
}

/** Sizes the interface to `size` and keeps it for the next start. */
export async function useSize(api: Api, size: number): Promise<void> {
  localStorage.setItem(KEY, String(size));
  await api.setZoom(size);
}
