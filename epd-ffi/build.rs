//! Passes the target and host triples to the integration tests, which
//! compile the C examples with the `cc` crate outside a build script, and
//! gives the shared library its SONAME on ELF targets: libepdkit.so.MAJOR
//! (libepdkit.so.0 while the version is 0.x), so programs linked against
//! it name the ABI they were built for.

fn main() {
    for var in ["TARGET", "HOST"] {
        let value = std::env::var(var).unwrap_or_default();
        println!("cargo:rustc-env=EPDKIT_BUILD_{var}={value}");
    }
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(os.as_str(), "linux" | "freebsd" | "netbsd" | "openbsd" | "dragonfly") {
        let major = env!("CARGO_PKG_VERSION_MAJOR");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libepdkit.so.{major}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
