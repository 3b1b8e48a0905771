# Sourced by every script that builds (scripts/test.sh, run.sh and the bench scripts): they build
# the workspace the same way, so that each reuses what another compiled.
#
# Clippy lints the workspace's crates as they are built (it is the compiler of the workspace's
# crates, as `cargo clippy` makes it), so that the dependencies are compiled once rather than
# checked for clippy and then built again: this is what `cargo clippy --workspace --all-targets
# -- -D warnings` checks (every target of the workspace is a library, a binary or a test). The
# wrapper is part of what cargo remembers of a build, so a build without it compiles the
# workspace's crates again.
RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"
export RUSTC_WORKSPACE_WRAPPER
export CLIPPY_ARGS="-Dwarnings__CLIPPY_HACKERY__"

# llama.cpp's CPU kernels are built once, for the instructions this machine has (the package
# builds one per CPU generation: the `every-cpu` feature, scripts/package.sh). llama-cpp-sys-2
# passes GGML_* variables to llama.cpp's CMake. Intel's AMX is left out, as llm/kernels.rs skips
# it in the package.
cpu_flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2 || true) "
for pair in sse4_2:SSE42 avx:AVX f16c:F16C fma:FMA avx2:AVX2 bmi2:BMI2 avx512vbmi:AVX512_VBMI \
  avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16 avx_vnni:AVX_VNNI; do
  case "$cpu_flags" in *" ${pair%%:*} "*) export "GGML_${pair#*:}=ON" ;; esac
done
# ggml's AVX-512 build needs the foundation and the CD, VL, DQ and BW extensions.
avx512=ON
for flag in avx512f avx512cd avx512vl avx512dq avx512bw; do
  case "$cpu_flags" in *" $flag "*) ;; *) avx512= ;; esac
done
[ -z "$avx512" ] || export GGML_AVX512=ON
unset cpu_flags pair flag avx512
