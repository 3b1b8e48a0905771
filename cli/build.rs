//! Gives the `lectern` program and the tests' program the run path to llama.cpp's shared
//! libraries that the core's build script works out (`DEP_LECTERN_RPATH`, the root `build.rs`).

fn main() {
    let rpath = std::env::var("DEP_LECTERN_RPATH").unwrap_or_else(|_| panic!("the core's build script did not run"));
    println!("cargo:rustc-link-arg=-Wl,--disable-new-dtags,-rpath,{rpath}");
}
