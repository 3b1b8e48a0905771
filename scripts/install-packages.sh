#!/usr/bin/env bash
# Installs the Debian packages Lectern builds and runs with, if any is missing (apt-get, as root
# or through sudo): protobuf for LanceDB, a C toolchain, cmake and libclang for llama.cpp (the
# built-in language model), WebKitGTK and GTK for the desktop app, Xvfb and WebKitWebDriver for its
# end-to-end tests (with xwd for their screenshots), python3 with pip for the model setup, Node.js with npm for the app's UI,
# poppler-utils for `lectern-bench extract` (pdftotext is its reference), libdbus for the system keyring, a
# session bus with gnome-keyring's Secret Service for the keyring's test, and Tesseract 5 with its
# English and orientation data for OCR of scanned pages (its library is loaded at run time), mold to
# link the programs (.cargo/config.toml), and unzip
# to unpack the PostgreSQL the tests run (scripts/postgres.sh).
set -euo pipefail

packages=(protobuf-compiler libprotobuf-dev build-essential pkg-config cmake clang libclang-dev mold python3 python3-pip
  libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libsoup-3.0-dev xvfb webkit2gtk-driver x11-apps poppler-utils
  libdbus-1-dev dbus-daemon dbus-bin gnome-keyring tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd unzip)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
