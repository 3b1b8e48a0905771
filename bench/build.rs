//! Gives the benchmark program the run path to llama.cpp's shared libraries that the core's build
//! script gives its own programs.

fn main() {
    let rpath = std::env::var("DEP_LECTERN_RPATH").unwrap_or_else(|_| panic!("the core's build script did not run"));
    println!("cargo:rustc-link-arg=-Wl,--disable-new-dtags,-rpath,{rpath}");
}
