// The window's icons: one set (Lucide), built as SVG elements, never from markup strings.

import { createElement, type IconNode } from "lucide";

export {
  ChevronRight,
  CircleAlert,
  Filter,
  Folder,
  FolderOpen,
  FolderPlus,
  FolderSync,
  Globe,
  KeyRound,
  LibraryBig,
  MessagesSquare,
  Pencil,
  Trash2,
  Pause,
  Play,
  EllipsisVertical,
  FileText,
  ScanText,
  Search,
  Settings,
  X,
} from "lucide";

/** Each icon built once; the tree draws hundreds, so each is a clone of its first. */
const built = new Map<IconNode, SVGElement>();

/** An icon, hidden from assistive technology (the control it sits in carries the name). */
export function icon(node: IconNode, className = ""): SVGElement {
  let first = built.get(node);
  if (!first) {
    first = createElement(node, { width: 16, height: 16, "aria-hidden": "true", focusable: "false" });
    first.classList.add("icon");
    built.set(node, first);
  }
  const svg = first.cloneNode(true) as SVGElement;
  if (className) svg.classList.add(className);
  return svg;
}
