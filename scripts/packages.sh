# Shared by scripts/run, scripts/test and .ci/run: installs the Debian packages in "$@" that
# this machine lacks (nothing when all are there), with sudo when not root. Sourced, not run.

# ensure_packages PKG...: installs the missing ones; fails with a message naming them.
ensure_packages() {
  local missing=() p
  if ! command -v dpkg >/dev/null 2>&1; then
    echo "note: not a Debian-based system; make sure these are installed: $*" >&2
    return 0
  fi
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  echo "installing missing Debian packages: ${missing[*]}" >&2
  local sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "error: these packages are missing and sudo is not available: ${missing[*]}" >&2
      echo "       as root: apt-get install ${missing[*]}" >&2
      return 1
    fi
    sudo_cmd=(sudo)
  fi
  "${sudo_cmd[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" || {
      echo "error: could not install: ${missing[*]}" >&2
      return 1
    }
}

# require_cargo: fails with the way to install Rust when cargo is missing.
require_cargo() {
  [ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
  command -v cargo >/dev/null 2>&1 && return 0
  echo "error: cargo (Rust) is not installed; install it with" >&2
  echo "       curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh" >&2
  return 1
}

# What building and running the viewer needs: a C toolchain (some dependencies build C),
# the X11 and Wayland client libraries winit loads at run time, and Mesa's OpenGL/EGL.
VIEWER_PACKAGES=(gcc pkg-config libx11-6 libx11-xcb1 libxcursor1 libxrandr2 libxi6
  libxkbcommon0 libxkbcommon-x11-0 libwayland-client0 libwayland-egl1 libgl1 libegl1
  libglx-mesa0 libegl-mesa0 libgl1-mesa-dri)

# What the tests need besides: Xvfb (the viewer's end-to-end test under a virtual X server),
# OpenVDB's and VTK's Python bindings with NumPy (our files opened by readers not ours), and
# Blender (tools/blender/import_plume.py loads and renders an export headless; ~300 MB, about
# a minute to install, seconds to run), Python's venv (the Python module's tests install
# their packages from PyPI into a virtual environment), and Khronos' reference GLSL
# compiler (every shader checked against the standard, not only against Mesa's compiler).
TEST_PACKAGES=("${VIEWER_PACKAGES[@]}" xvfb xauth python3 python3-numpy python3-openvdb
  python3-vtk9 python3-venv blender glslang-tools)

# Run rather than sourced (`bash scripts/packages.sh`): prints every package the tests need
# (the viewer's included), for `sudo apt-get install $(bash scripts/packages.sh)`.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "${TEST_PACKAGES[@]}"
fi
