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

/** An icon, hidden from assistive technology (the control it sits in carries the name). */
export function icon(node: IconNode, className = ""): SVGElement {
  const svg = createElement(node, { width: 16, height: 16, "aria-hidden": "true", focusable: "false" });
  svg.classList.add("icon");
  if (className) svg.classList.add(className);
  return svg;
}
